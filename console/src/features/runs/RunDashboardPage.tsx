import { Alert, Box, Button, Paper, Tab, Tabs, Typography, useMediaQuery } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { MOBILE_QUERY } from '../../app/theme';
import { useRealtime } from '../shell/realtime/RealtimeProvider';
import { toastSessionFailure, toastSessionSuccess } from '../sessions/outcomes';
import { useRun, useRunAction, useRunFiles, useRunVariables } from '../sessions/queries';
import { StatusChip } from '../sessions/RunsModal';
import { formatRunDate } from './format';
import { FilesTab } from './FilesTab';
import { statusIndex } from './graph';
import { HistoryTab } from './HistoryTab';
import { Legend } from './Legend';
import { RunGraphView, type NodeCommand } from './RunGraphView';
import { POLL_EVERY_MS, POLL_FIRST_MS } from './status';
import { TerminalTab, type LogTarget } from './TerminalTab';
import { VariablesTab } from './VariablesTab';

type TabKey = 'terminal' | 'files' | 'history' | 'variables';
/** restart_from is answered from these run phases (api RUN_ACTION_RULES). */
const RESTARTABLE = ['COMPLETED', 'ERROR', 'STOPPED'];

/** /dashboard/session/{uuid}/{run} (spec 2 §2 'Run dashboard'). */
export default function RunDashboardPage() {
  const { t } = useTranslation('runs');
  const compact = useMediaQuery(MOBILE_QUERY);
  const { uuid: session = '', run: runId = '' } = useParams();
  const { status: socket } = useRealtime();
  // Realtime messages move the run; polling (2 s, then every 5 s) only while the socket is down.
  const socketDown = socket !== 'connected';
  const run = useRun(runId, (answers) =>
    socketDown ? (answers <= 1 ? POLL_FIRST_MS : POLL_EVERY_MS) : false,
  );
  const [tab, setTab] = useState<TabKey>('terminal');
  const [selected, setSelected] = useState<string | null>(null);
  const [target, setTarget] = useState<LogTarget | null>(null);
  const [filesOf, setFilesOf] = useState<string | null>(null);
  const files = useRunFiles(runId, Boolean(run.data) && tab === 'files');
  const variables = useRunVariables(runId, run.data?.status, Boolean(run.data) && tab === 'variables');
  const action = useRunAction();

  const sandboxes = useMemo(() => {
    const statusOf = statusIndex(run.data?.sandbox_statuses);
    return (run.data?.workflow?.nodes ?? []).map((n) => ({ id: n.id, name: n.name, status: statusOf(n) }));
  }, [run.data]);

  // The first sandbox's log is on screen from the start.
  useEffect(() => {
    if (!target && sandboxes[0]) setTarget({ sandboxId: sandboxes[0].id, name: sandboxes[0].name });
  }, [sandboxes, target]);

  const select = (nodeId: string) => {
    const sandbox = sandboxes.find((s) => s.id === nodeId);
    if (!sandbox) return;
    setSelected(nodeId);
    setTarget({ sandboxId: sandbox.id, name: sandbox.name });
    setFilesOf(null);
  };
  const command = (c: NodeCommand, nodeId: string) => {
    const sandbox = sandboxes.find((s) => s.id === nodeId);
    if (!sandbox) return;
    if (c === 'logs') setTab('terminal');
    if (c === 'files') {
      setFilesOf(sandbox.name);
      setTab('files');
    }
    if (c === 'restart')
      action.mutate(
        { run: runId, session, action: 'restart_from', sandbox: sandbox.id },
        { onSuccess: () => toastSessionSuccess('run'), onError: toastSessionFailure },
      );
  };

  if (run.isError && run.error instanceof ApiError && run.error.status === 404)
    return (
      <Box sx={{ p: 3, maxWidth: 800, mx: 'auto' }}>
        <Alert
          severity="error"
          data-testid="invalid-run"
          action={
            <Button component={RouterLink} to="/session/list">
              {t('toSessions')}
            </Button>
          }
        >
          <strong>{t('invalidRun')}</strong> — {t('invalidRunText')}
        </Alert>
      </Box>
    );
  if (run.isError && !run.data)
    return (
      <Box sx={{ p: 3 }}>
        <Alert severity="error" action={<Button onClick={() => void run.refetch()}>{t('retry')}</Button>}>
          {t('loadFailed')}: {run.error.message}
        </Alert>
      </Box>
    );
  if (!run.data)
    return (
      <Box sx={{ p: 3 }}>
        <Typography color="text.secondary">{t('loading')}</Typography>
      </Box>
    );
  const data = run.data;
  return (
    <Box
      sx={{
        p: compact ? 1 : 2,
        display: 'flex',
        flexDirection: 'column',
        gap: 1.5,
        maxWidth: 1600,
        mx: 'auto',
      }}
    >
      <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="h5" component="h1" sx={{ wordBreak: 'break-word' }}>
          {data.name || t('title')}
        </Typography>
        <StatusChip status={data.status} />
        <Typography variant="body2" color="text.secondary">
          {t('startEnd', { start: formatRunDate(data.start), end: formatRunDate(data.stop) })}
        </Typography>
        {socketDown && (
          <Typography variant="caption" color="warning.main">
            {t('polling')}
          </Typography>
        )}
      </Box>
      <Paper
        variant="outlined"
        sx={{ height: compact ? '45vh' : '50vh', minHeight: 280, position: 'relative' }}
      >
        <RunGraphView
          run={data}
          selected={selected}
          onSelect={select}
          onCommand={command}
          canRestart={RESTARTABLE.includes(data.status)}
        />
      </Paper>
      <Legend />
      <Paper variant="outlined" sx={{ p: compact ? 1 : 1.5 }}>
        <Tabs value={tab} onChange={(_e, v: TabKey) => setTab(v)} sx={{ mb: 1 }} variant="scrollable">
          <Tab value="terminal" label={t('terminal')} />
          <Tab value="files" label={t('files')} />
          <Tab value="history" label={t('history')} />
          <Tab value="variables" label={t('variables')} />
        </Tabs>
        {tab === 'terminal' && (
          <TerminalTab run={data} sandboxes={sandboxes} target={target} onTarget={setTarget} />
        )}
        {tab === 'files' && (
          <FilesTab
            run={data.uuid}
            files={files.data ?? data.outputs}
            loading={files.isFetching}
            error={files.isError ? files.error.message : undefined}
            sandboxFilter={filesOf}
            sandboxIdOf={(name) => sandboxes.find((s) => s.name === name.replace(/\(\d+\)$/, ''))?.id ?? name}
            compact={compact}
          />
        )}
        {tab === 'history' && <HistoryTab run={data} />}
        {tab === 'variables' && (
          <VariablesTab
            variables={variables.data}
            loading={variables.isFetching}
            error={variables.isError ? variables.error.message : undefined}
            onRetry={() => void variables.refetch()}
            selected={selected}
            onShowAll={() => setSelected(null)}
            compact={compact}
          />
        )}
      </Paper>
    </Box>
  );
}
