import DownloadIcon from '@mui/icons-material/Download';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Chip,
  CircularProgress,
  FormControl,
  InputLabel,
  MenuItem,
  Select,
  TextField,
  Typography,
} from '@mui/material';
import { lazy, Suspense, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Run, SandboxStatus } from '../sessions/types';
import { logDownloadUrl } from './logSocket';
import type { LogState, LogTerminalHandle } from './LogTerminal';
import { beyondStart, hasLog } from './status';

// xterm is its own chunk: the graph shows before it loads.
const LogTerminal = lazy(() => import('./LogTerminal'));

export interface LogTarget {
  /** The sandbox's node id (the log and file routes' sandboxId). */
  sandboxId: string;
  /** The step: the sandbox's name, or one dynamic instance's. */
  name: string;
}

/** Terminal tab (spec 2 §2): the log of the selected sandbox or sub-sandbox, with download. */
export function TerminalTab({
  run,
  sandboxes,
  target,
  onTarget,
}: {
  run: Run;
  /** The run's sandboxes: node id, name and status entry. */
  sandboxes: { id: string; name: string; status?: SandboxStatus }[];
  target: LogTarget | null;
  onTarget: (target: LogTarget) => void;
}) {
  const { t } = useTranslation('runs');
  const [state, setState] = useState<{ state: LogState; message?: string }>({ state: 'connecting' });
  const [complete, setComplete] = useState(false);
  const terminal = useRef<LogTerminalHandle>(null);
  const statuses = (run.sandbox_statuses ?? []).map((s) => s.status);
  const current = sandboxes.find((s) => s.id === target?.sandboxId);
  const instances = (current?.status?.sub_sandbox ?? []).filter((s) => hasLog(s.status));
  const canDownload = beyondStart(statuses) && target !== null;

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
        {/* A search box, not a list of every sandbox: a run may have thousands. */}
        <Autocomplete
          size="small"
          sx={{ minWidth: 220 }}
          options={sandboxes}
          value={current ?? null}
          getOptionLabel={(s) => s.name}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          disableClearable={Boolean(current)}
          onChange={(_e, next) => {
            if (next) onTarget({ sandboxId: next.id, name: next.name });
          }}
          renderInput={(params) => <TextField {...params} label={t('sandbox')} />}
        />
        {instances.length > 0 && current && (
          <FormControl size="small" sx={{ minWidth: 200 }}>
            <InputLabel id="log-instance">{t('instance')}</InputLabel>
            <Select
              labelId="log-instance"
              label={t('instance')}
              value={target?.name ?? current.name}
              onChange={(e) => onTarget({ sandboxId: current.id, name: e.target.value })}
            >
              <MenuItem value={current.name}>{t('wholeSandbox')}</MenuItem>
              {instances.map((s) => (
                <MenuItem key={s.name} value={s.name}>
                  {s.name}
                </MenuItem>
              ))}
            </Select>
          </FormControl>
        )}
        {target && (
          <Chip
            size="small"
            label={t(`logState.${state.state}`)}
            color={state.state === 'error' ? 'error' : state.state === 'connected' ? 'success' : 'default'}
          />
        )}
        <Box sx={{ flex: 1 }} />
        {target && state.state !== 'error' && (
          <Button size="small" onClick={() => terminal.current?.loadEarlier()} disabled={complete}>
            {t('loadEarlier')}
          </Button>
        )}
        <Button
          size="small"
          variant="outlined"
          startIcon={<DownloadIcon />}
          disabled={!canDownload}
          {...(canDownload && target
            ? {
                component: 'a',
                href: logDownloadUrl(run.uuid, target.sandboxId, target.name),
                download: true,
              }
            : {})}
        >
          {t('downloadLog')}
        </Button>
      </Box>
      {!target ? (
        <Typography color="text.secondary" sx={{ p: 2 }}>
          {t('chooseSandbox')}
        </Typography>
      ) : (
        <>
          {state.state === 'error' && <Alert severity="warning">{t('noLog')}</Alert>}
          <Suspense fallback={<CircularProgress aria-label={t('loading')} />}>
            <LogTerminal
              key={`${target.sandboxId}/${target.name}`}
              run={run.uuid}
              sandboxId={target.sandboxId}
              name={target.name}
              label={t('terminal')}
              handle={terminal}
              onState={(s, message) => setState({ state: s, message })}
              onComplete={setComplete}
            />
          </Suspense>
        </>
      )}
    </Box>
  );
}
