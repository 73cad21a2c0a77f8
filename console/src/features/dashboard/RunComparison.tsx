import Add from '@mui/icons-material/Add';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import {
  Box,
  Button,
  IconButton,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../lib/datetime';
import { useSessionRuns } from '../sessions/queries';
import type { SessionItem } from '../sessions/types';
import { CategoryBars, PALETTE } from './charts';
import { ChartGrid, ChartPanel, type ChartState } from './ChartPanel';
import { useRunsStatistics } from './queries';
import {
  completeRunQuery,
  minutes,
  parseRunQuery,
  runKey,
  SEPARATOR,
  toUnits,
  type RunStatistics,
} from './shape';

const ENDED = new Set(['COMPLETED', 'ERROR', 'STOPPED']);
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export interface Picked {
  run: string;
  label: string;
}

/** One row: a session and one of its ended runs, typed 'session~run' with completion. */
function RunRow({
  index,
  text,
  sessions,
  onText,
  onPicked,
  onRemove,
}: {
  index: number;
  text: string;
  sessions: readonly SessionItem[];
  onText: (text: string) => void;
  onPicked: (picked: Picked | null) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation('dashboard');
  const query = parseRunQuery(text);
  const session = sessions.find((s) => same(s.name, query.session));
  const runs = useSessionRuns(session?.type ?? 'schedule', session?.uuid ?? '', Boolean(session));
  const ended = (runs.data ?? []).filter((run) => ENDED.has(run.status));
  // A session's runs share its name: a run is named by its short id (the start of its uuid).
  const runName = (run: (typeof ended)[number]) => runKey(run.uuid);
  const picked = query.run === null ? undefined : ended.find((run) => same(runName(run), query.run!));
  const pickedId = picked?.uuid ?? null;
  const pickedLabel = picked && session ? `${session.name}${SEPARATOR}${runName(picked)}` : '';

  useEffect(() => {
    onPicked(pickedId ? { run: pickedId, label: pickedLabel } : null);
    // onPicked changes every render of the parent; the pick is what matters.
  }, [pickedId, pickedLabel]);

  const sessionMatches = sessions.filter((s) => s.name.toLowerCase().startsWith(query.session.toLowerCase()));
  const runMatches =
    query.run === null
      ? []
      : ended.filter((run) => runName(run).toLowerCase().startsWith(query.run!.toLowerCase()));
  let helper: string = t('comparison.hint');
  let problem = false;
  if (text.trim() !== '') {
    if (session && runs.isPending) helper = t('comparison.loadingRuns');
    else if (sessionMatches.length === 0 || (query.run !== null && (!session || runMatches.length === 0))) {
      helper = t('comparison.noRun');
      problem = true;
    } else if (!picked) {
      const names =
        query.run === null
          ? sessionMatches.map((s) => s.name)
          : runMatches.map((run) => `${runName(run)} (${formatDateTime(run.start)})`);
      helper = names.slice(0, 3).join(', ') + (names.length > 3 ? ', …' : '');
    }
  }

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key !== 'Enter' && event.key !== 'Tab') return;
    const completed = completeRunQuery(
      text,
      sessions.map((s) => s.name),
      ended.map(runName),
    );
    if (completed !== text) {
      event.preventDefault();
      onText(completed);
    } else if (event.key === 'Enter') event.preventDefault();
  };

  return (
    <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }} data-testid="comparison-row">
      <TextField
        size="small"
        fullWidth
        label={`${t('comparison.run')} ${index + 1}`}
        placeholder={t('comparison.placeholder')}
        value={text}
        onChange={(event) => onText(event.target.value)}
        onKeyDown={onKeyDown}
        error={problem}
        helperText={helper}
        slotProps={{ htmlInput: { autoComplete: 'off', spellCheck: false } }}
      />
      <Tooltip title={t('comparison.remove')}>
        <IconButton aria-label={t('comparison.remove')} onClick={onRemove} sx={{ mt: 0.25 }}>
          <DeleteOutline />
        </IconButton>
      </Tooltip>
    </Box>
  );
}

interface Row {
  id: number;
  text: string;
  picked: Picked | null;
}

let nextRow = 1;
const newRow = (): Row => ({ id: nextRow++, text: '', picked: null });

/** Section Run Comparison (non-admin roles, spec 3 §2.1; picker of spec 2 "Statistics"). */
export function RunComparison({ sessions }: { sessions: readonly SessionItem[] }) {
  const { t } = useTranslation('dashboard');
  const [rows, setRows] = useState<Row[]>(() => [newRow()]);
  const update = (id: number, change: Partial<Row>) =>
    setRows((all) => all.map((row) => (row.id === id ? { ...row, ...change } : row)));
  const picked = rows.flatMap((row) => (row.picked ? [row.picked] : []));
  const unique = [...new Map(picked.map((p) => [p.run, p])).values()];
  const results = useRunsStatistics(unique.map((p) => p.run));
  const loaded = unique.flatMap((p, i) => (results[i]?.data ? [{ ...p, stats: results[i].data }] : []));
  const state: ChartState =
    unique.length === 0
      ? 'noRuns'
      : results.some((r) => r.isPending)
        ? 'loading'
        : loaded.length === 0
          ? 'error'
          : 'ready';
  const shaped = loaded.map(({ label, stats }) => shapeRun(label, stats));

  return (
    <Box component="section" aria-labelledby="dashboard-comparison" sx={{ display: 'grid', gap: 2 }}>
      <Typography id="dashboard-comparison" variant="h6" component="h2">
        {t('comparison.title')}
      </Typography>
      <ChartGrid columns="minmax(0, 1fr) minmax(0, 2fr)">
        <Box sx={{ display: 'grid', gap: 1, alignContent: 'start' }}>
          {rows.map((row, index) => (
            <RunRow
              key={row.id}
              index={index}
              text={row.text}
              sessions={sessions}
              onText={(text) => update(row.id, { text })}
              onPicked={(p) => update(row.id, { picked: p })}
              onRemove={() =>
                setRows((all) => (all.length > 1 ? all.filter((r) => r.id !== row.id) : [newRow()]))
              }
            />
          ))}
          <Box>
            <Button startIcon={<Add />} onClick={() => setRows((all) => [...all, newRow()])}>
              {t('comparison.add')}
            </Button>
          </Box>
        </Box>
        <ChartPanel title={t('comparison.chart')} state={state} testId="chart-comparison">
          <CategoryBars
            rows={shaped}
            series={(['time', 'cpu', 'memory', 'disk'] as const).map((key, i) => ({
              key,
              label: t(`comparison.columns.${key}`),
              color: PALETTE[i]!,
            }))}
          />
          <TableContainer>
            <Table size="small" aria-label={t('comparison.chart')}>
              <TableHead>
                <TableRow>
                  {(['run', 'time', 'cpu', 'memory', 'disk'] as const).map((key) => (
                    <TableCell key={key} align={key === 'run' ? 'left' : 'right'}>
                      {t(`comparison.columns.${key}`)}
                    </TableCell>
                  ))}
                </TableRow>
              </TableHead>
              <TableBody>
                {shaped.map((row) => (
                  <TableRow key={row.name}>
                    <TableCell sx={{ wordBreak: 'break-all' }}>{row.name}</TableCell>
                    <TableCell align="right">{row.time}</TableCell>
                    <TableCell align="right">{row.cpu}</TableCell>
                    <TableCell align="right">{row.memory}</TableCell>
                    <TableCell align="right">{row.disk}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        </ChartPanel>
      </ChartGrid>
    </Box>
  );
}

/** One compared run in display units: minutes, cores, GB. */
export const shapeRun = (name: string, stats: RunStatistics) => ({
  name,
  time: minutes(stats.effective_time),
  cpu: toUnits('cpu', stats.allocated_cpu),
  memory: toUnits('memory', stats.allocated_memory),
  disk: toUnits('disk', stats.allocated_disk),
});
