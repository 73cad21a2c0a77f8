import { Box, Typography, useMediaQuery } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MOBILE_QUERY } from '../../app/theme';
import { ListFilters } from '../../components/ListFilters';
import { ConfirmDeleteDialog } from '../../components/ConfirmDialogs';
import { ForcedDeleteDialog } from './DeleteDialogs';
import { toastSandboxFailure, toastSandboxSuccess } from './outcomes';
import { useCloneSandbox, useRenameSandbox, useSandboxes, useSaveVariables, useTags } from './queries';
import { DEFAULT_PAGE_SIZE } from './rules';
import { SandboxTable } from './SandboxTable';
import type { Sandbox, SandboxListQuery, SortColumn } from './types';
import { useDeleteFlow } from './useDeleteFlow';
import { VariablesPopover } from './VariablesPopover';

/** How long the search waits for the typing to pause before asking the server. */
const SEARCH_DEBOUNCE_MS = 300;

const FIRST_QUERY: SandboxListQuery = {
  page: 0,
  size: DEFAULT_PAGE_SIZE,
  sort: 'creation_date',
  order: 'desc',
  search: '',
  mine: false,
  visibility: '',
  tag: '',
};

/** /sandbox/list (spec 1 §2.7). */
export default function SandboxListPage() {
  const { t } = useTranslation('sandboxes');
  const compact = useMediaQuery(MOBILE_QUERY);
  const [query, setQuery] = useState(FIRST_QUERY);
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [variables, setVariables] = useState<{ sandbox: Sandbox; anchor: HTMLElement } | null>(null);

  useEffect(() => {
    const timer = setTimeout(
      () => setQuery((q) => (q.search === search ? q : { ...q, search, page: 0 })),
      SEARCH_DEBOUNCE_MS,
    );
    return () => clearTimeout(timer);
  }, [search]);

  // The selection is of rows on screen: another page or filter starts a new one.
  useEffect(() => setSelected([]), [query]);

  const list = useSandboxes(query);
  const tags = useTags();
  const tagColors = useMemo(
    () => new Map((tags.data ?? []).map((tag) => [tag.label, tag.color])),
    [tags.data],
  );
  const rename = useRenameSandbox();
  const saveVariables = useSaveVariables();
  const clone = useCloneSandbox();
  const deletion = useDeleteFlow((ids) => setSelected((s) => s.filter((id) => !ids.includes(id))));

  const rows = list.data?.sandboxes;
  const filtered = Boolean(query.search || query.mine || query.visibility || query.tag);
  const change = (patch: Partial<SandboxListQuery>) => setQuery({ ...query, ...patch });

  return (
    <Box sx={{ p: compact ? 1.5 : 3, maxWidth: 1400, mx: 'auto' }}>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {t('listTitle')}
      </Typography>
      <Box sx={{ mb: 2 }}>
        <ListFilters
          namespace="sandboxes"
          visibilities={['public', 'private'] as const}
          search={search}
          filters={{ mine: query.mine, visibility: query.visibility, tag: query.tag }}
          tags={(tags.data ?? []).map((tag) => tag.label)}
          selected={selected.length}
          onSearch={setSearch}
          onFilters={(filters) => change({ ...filters, page: 0 })}
          onDeleteSelected={() => deletion.ask((rows ?? []).filter((s) => selected.includes(s.uuid)))}
        />
      </Box>
      <SandboxTable
        rows={rows}
        total={list.data?.total ?? 0}
        query={query}
        filtered={filtered}
        loading={list.isFetching}
        error={list.isError ? list.error.message : undefined}
        selected={selected}
        compact={compact}
        tagColors={tagColors}
        onSelectAll={setSelected}
        onSort={(sort: SortColumn) =>
          change({ sort, order: query.sort === sort && query.order === 'asc' ? 'desc' : 'asc', page: 0 })
        }
        onPage={(page) => change({ page })}
        onSize={(size) => change({ size, page: 0 })}
        onRetry={() => void list.refetch()}
        actions={{
          onSelect: (uuid) =>
            setSelected(selected.includes(uuid) ? selected.filter((id) => id !== uuid) : [...selected, uuid]),
          onRename: (sandbox, name) =>
            rename.mutate(
              { uuid: sandbox.uuid, name },
              {
                onSuccess: () => toastSandboxSuccess('rename'),
                onError: (error) => toastSandboxFailure('rename', error),
              },
            ),
          onVariables: (sandbox, anchor) => setVariables({ sandbox, anchor }),
          onClone: (sandbox) =>
            clone.mutate(sandbox.uuid, {
              onSuccess: () => toastSandboxSuccess('clone'),
              onError: (error) => toastSandboxFailure('clone', error),
            }),
          onDelete: (sandbox) => deletion.ask([sandbox]),
        }}
      />
      {variables && (
        <VariablesPopover
          anchor={variables.anchor}
          name={variables.sandbox.name}
          variables={variables.sandbox.variables}
          saving={saveVariables.isPending}
          onClose={() => setVariables(null)}
          onSave={(next) =>
            saveVariables.mutate(
              { uuid: variables.sandbox.uuid, variables: next },
              {
                onSuccess: () => {
                  toastSandboxSuccess('variables');
                  setVariables(null);
                },
                onError: (error) => toastSandboxFailure('variables', error),
              },
            )
          }
        />
      )}
      <ConfirmDeleteDialog
        ns="sandboxes"
        names={deletion.confirming}
        busy={deletion.busy}
        onConfirm={deletion.confirm}
        onCancel={deletion.cancel}
      />
      <ForcedDeleteDialog
        blocked={deletion.blocked}
        busy={deletion.busy}
        onDelete={deletion.force}
        onCancel={deletion.cancel}
      />
    </Box>
  );
}
