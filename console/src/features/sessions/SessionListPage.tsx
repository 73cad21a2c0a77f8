import { Box, Typography, useMediaQuery } from '@mui/material';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MOBILE_QUERY } from '../../app/theme';
import { ConfirmDeleteDialog } from '../../components/ConfirmDialogs';
import { START_LOCK_MS } from '../runs/status';
import { sortRows, useSort, type Sort } from '../settings/common/table';
import { toastSessionFailure, toastSessionSuccess } from './outcomes';
import { matches, parseQuery } from './query';
import { useCloneSession, useDeleteSessions, useSessions, useStartNow } from './queries';
import { RunsModal } from './RunsModal';
import { SessionFilters, type Toggles } from './SessionFilters';
import { SessionTable, type SortKey } from './SessionTable';
import type { SessionItem } from './types';
import { useTimedLock } from './useTimedLock';

const toggle = (list: string[], id: string) =>
  list.includes(id) ? list.filter((x) => x !== id) : [...list, id];

const SORT_VALUE: Record<SortKey, (s: SessionItem) => string> = {
  name: (s) => s.name.toLowerCase(),
  workflow: (s) => (s.workflow ?? '').toLowerCase(),
  creationDate: (s) => s.creation_time,
};

export const sortSessions = (rows: readonly SessionItem[], sort: Sort<SortKey>): SessionItem[] =>
  sortRows(rows, SORT_VALUE[sort.column], sort.direction);

/** /session/list (spec 2 §2 'Session list'). */
export default function SessionListPage() {
  const { t } = useTranslation('sessions');
  const compact = useMediaQuery(MOBILE_QUERY);
  const list = useSessions();
  const [search, setSearch] = useState('');
  const [toggles, setToggles] = useState<Toggles>({ running: false, active: false });
  const { sort, headerOf } = useSort<SortKey>('creationDate', 'desc');
  const [page, setPage] = useState(0);
  const [size, setSize] = useState(30);
  const [selected, setSelected] = useState<string[]>([]);
  const [deleting, setDeleting] = useState<SessionItem[] | null>(null);
  const [runsOf, setRunsOf] = useState<SessionItem | null>(null);
  const [starting, setStarting] = useState<string | null>(null);
  const startLock = useTimedLock(START_LOCK_MS);
  const clone = useCloneSession();
  const remove = useDeleteSessions();
  const start = useStartNow();

  const parsed = useMemo(() => parseQuery(search), [search]);
  const shown = useMemo(() => {
    const kept = (list.data ?? []).filter(
      (s) =>
        matches(parsed, s) &&
        (!toggles.running || s.running) &&
        (!toggles.active || (s.active ?? Boolean(s.next_run))),
    );
    return sortSessions(kept, sort);
  }, [list.data, parsed, toggles, sort]);
  const lastPage = Math.max(0, Math.ceil(shown.length / size) - 1);
  const pageIndex = Math.min(page, lastPage);
  const rows = shown.slice(pageIndex * size, (pageIndex + 1) * size);
  // The run modal follows realtime patches of the row.
  const runsSession = runsOf ? (list.data?.find((s) => s.uuid === runsOf.uuid) ?? runsOf) : null;

  const startNow = async (session: SessionItem) => {
    setStarting(session.uuid);
    try {
      await start.mutateAsync({ uuid: session.uuid, workflow_uuid: session.workflow_uuid });
      toastSessionSuccess('start');
      startLock.lock(session.uuid);
    } catch (error) {
      toastSessionFailure(error);
    } finally {
      setStarting(null);
    }
  };

  const confirmDelete = () => {
    if (!deleting) return;
    const ids = deleting.map((s) => s.uuid);
    remove.mutate(ids, {
      onSuccess: () => {
        toastSessionSuccess('delete');
        setSelected((s) => s.filter((id) => !ids.includes(id)));
      },
      onError: toastSessionFailure,
      onSettled: () => setDeleting(null),
    });
  };

  return (
    <Box sx={{ p: compact ? 1.5 : 3, maxWidth: 1400, mx: 'auto' }}>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {t('listTitle')}
      </Typography>
      <Box sx={{ mb: 2 }}>
        <SessionFilters
          search={search}
          errors={parsed.errors}
          toggles={toggles}
          selected={selected.length}
          onSearch={(text) => {
            setSearch(text);
            setPage(0);
          }}
          onToggles={(next) => {
            setToggles(next);
            setPage(0);
          }}
          onDeleteSelected={() => setDeleting((list.data ?? []).filter((s) => selected.includes(s.uuid)))}
        />
      </Box>
      <SessionTable
        rows={list.data}
        page={rows}
        count={shown.length}
        pageIndex={pageIndex}
        size={size}
        filtered={Boolean(search.trim() || toggles.running || toggles.active)}
        loading={list.isFetching}
        error={list.isError ? list.error.message : undefined}
        sortHeader={headerOf}
        selected={selected}
        starting={starting}
        isStartLocked={startLock.isLocked}
        compact={compact}
        onSelectPage={(ids) =>
          setSelected(
            ids.length
              ? [...new Set([...selected, ...ids])]
              : selected.filter((id) => !rows.some((r) => r.uuid === id)),
          )
        }
        onPage={setPage}
        onSize={(next) => {
          setSize(next);
          setPage(0);
        }}
        onRetry={() => void list.refetch()}
        actions={{
          onSelect: (uuid) => setSelected(toggle(selected, uuid)),
          onRuns: setRunsOf,
          onStart: (session) => void startNow(session),
          onClone: (session) =>
            clone.mutate(session.uuid, {
              onSuccess: () => toastSessionSuccess('clone'),
              onError: toastSessionFailure,
            }),
          onDelete: (session) => setDeleting([session]),
        }}
      />
      <RunsModal session={runsSession} onClose={() => setRunsOf(null)} />
      <ConfirmDeleteDialog
        ns="sessions"
        names={deleting?.map((s) => s.name) ?? null}
        busy={remove.isPending}
        onConfirm={confirmDelete}
        onCancel={() => setDeleting(null)}
      />
    </Box>
  );
}
