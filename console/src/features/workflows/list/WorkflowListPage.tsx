import AddIcon from '@mui/icons-material/Add';
import { Box, Button, Typography, useMediaQuery } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { useMe } from '../../../api/queries';
import { MOBILE_QUERY } from '../../../app/theme';
import { ListFilters } from '../../../components/ListFilters';
import { useTags } from '../../sandboxes/queries';
import { VariablesPopover } from '../../sandboxes/VariablesPopover';
import { toasts } from '../../toasts/toast-store';
import { toastWorkflowFailure, toastWorkflowSuccess } from '../outcomes';
import {
  useCloneWorkflow,
  useDeleteWorkflows,
  useRenameWorkflow,
  useWorkflowVariables,
  useWorkflowVisibility,
  useWorkflows,
} from '../queries';
import type { WorkflowItem, WorkflowListQuery } from '../types';
import { ConfirmDeleteDialog } from '../../../components/ConfirmDialogs';
import { WorkflowTable } from './WorkflowTable';

/** How long the search waits for the typing to pause before asking the server. */
const SEARCH_DEBOUNCE_MS = 300;

const FIRST_QUERY: WorkflowListQuery = {
  page: 0,
  size: 30,
  sort: 'name',
  order: 'asc',
  search: '',
  mine: false,
  visibility: '',
  tag: '',
};

const toggle = (list: string[], id: string) =>
  list.includes(id) ? list.filter((x) => x !== id) : [...list, id];

/** /workflow/list (spec 2 §2 'Workflow list'). */
export default function WorkflowListPage() {
  const { t } = useTranslation('workflows');
  const compact = useMediaQuery(MOBILE_QUERY);
  const me = useMe();
  const [query, setQuery] = useState(FIRST_QUERY);
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [expanded, setExpanded] = useState<string[]>([]);
  const [deleting, setDeleting] = useState<WorkflowItem[] | null>(null);
  const [variables, setVariables] = useState<{
    workflow: WorkflowItem;
    sandbox: string;
    anchor: HTMLElement;
  } | null>(null);

  useEffect(() => {
    const timer = setTimeout(
      () => setQuery((q) => (q.search === search ? q : { ...q, search, page: 0 })),
      SEARCH_DEBOUNCE_MS,
    );
    return () => clearTimeout(timer);
  }, [search]);

  const list = useWorkflows(query);
  const tags = useTags();
  const tagColors = useMemo(
    () => new Map((tags.data ?? []).map((tag) => [tag.label, tag.color])),
    [tags.data],
  );
  const rename = useRenameWorkflow();
  const clone = useCloneWorkflow();
  const remove = useDeleteWorkflows();
  const visibility = useWorkflowVisibility();
  const saveVariables = useWorkflowVariables();

  const rows = list.data?.workflows as WorkflowItem[] | undefined;
  const filtered = Boolean(query.search || query.mine || query.visibility || query.tag);
  const change = (patch: Partial<WorkflowListQuery>) => setQuery({ ...query, ...patch });
  const report = (operation: Parameters<typeof toastWorkflowSuccess>[0]) => ({
    onSuccess: () => toastWorkflowSuccess(operation),
    onError: toastWorkflowFailure,
  });

  const confirmDelete = () => {
    if (!deleting) return;
    const ids = deleting.map((w) => w.uuid);
    remove.mutate(ids, {
      onSuccess: (answer) => {
        toastWorkflowSuccess('delete');
        setSelected((s) => s.filter((id) => !answer.workflows.includes(id)));
        setDeleting(null);
      },
      onError: (error) => {
        toastWorkflowFailure(error);
        setDeleting(null);
      },
    });
  };

  const popoverVariables = variables
    ? (variables.workflow.sandboxes.find((s) => s.sandbox_name === variables.sandbox)?.variables ?? [])
    : [];

  return (
    <Box sx={{ p: compact ? 1.5 : 3, maxWidth: 1400, mx: 'auto' }}>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {t('listTitle')}
      </Typography>
      <Box sx={{ mb: 2 }}>
        <ListFilters
          namespace="workflows"
          visibilities={['private', 'public', 'group'] as const}
          search={search}
          filters={{ mine: query.mine, visibility: query.visibility, tag: query.tag }}
          tags={(tags.data ?? []).map((tag) => tag.label)}
          selected={selected.length}
          onSearch={setSearch}
          onFilters={(filters) => change({ ...filters, page: 0 })}
          onDeleteSelected={() => setDeleting((rows ?? []).filter((w) => selected.includes(w.uuid)))}
          actions={
            <Button variant="contained" startIcon={<AddIcon />} component={RouterLink} to="/workflow/create">
              {t('createNew')}
            </Button>
          }
        />
      </Box>
      <WorkflowTable
        rows={rows}
        total={list.data?.total ?? 0}
        query={query}
        filtered={filtered}
        loading={list.isFetching}
        error={list.isError ? list.error.message : undefined}
        selected={selected}
        expanded={expanded}
        compact={compact}
        tagColors={tagColors}
        groups={me.data?.groups ?? []}
        onSelectAll={setSelected}
        onSortByName={() =>
          change({
            sort: 'name',
            order: query.sort === 'name' && query.order === 'asc' ? 'desc' : 'asc',
            page: 0,
          })
        }
        onPage={(page) => change({ page })}
        onSize={(size) => change({ size: size as WorkflowListQuery['size'], page: 0 })}
        onRetry={() => void list.refetch()}
        actions={{
          onSelect: (uuid) => setSelected(toggle(selected, uuid)),
          onExpand: (uuid) => setExpanded(toggle(expanded, uuid)),
          onRename: (workflow, name) => rename.mutate({ uuid: workflow.uuid, name }, report('rename')),
          onClone: (workflow) => clone.mutate(workflow.uuid, report('clone')),
          onDelete: (workflow) => setDeleting([workflow]),
          onVisibility: (workflow, next) =>
            visibility.mutate({ uuid: workflow.uuid, visibility: next }, report('visibility')),
          onVariables: (workflow, sandbox, anchor) => setVariables({ workflow, sandbox, anchor }),
        }}
      />
      {variables && (
        <VariablesPopover
          anchor={variables.anchor}
          name={variables.sandbox}
          variables={popoverVariables}
          saving={saveVariables.isPending}
          onClose={() => setVariables(null)}
          onSave={(next) => {
            // Spec 2 §5: in a workflow both the name and the value must be filled.
            if (next.some((v) => v.value === '')) {
              toasts.show({ title: t('warning'), text: t('emptyValues'), type: 'warning' });
              return;
            }
            saveVariables.mutate(
              { uuid: variables.workflow.uuid, sandbox: variables.sandbox, variables: next },
              {
                onSuccess: () => {
                  toastWorkflowSuccess('variables');
                  setVariables(null);
                },
                onError: toastWorkflowFailure,
              },
            );
          }}
        />
      )}
      <ConfirmDeleteDialog
        ns="workflows"
        deleteKey="deleteButton"
        names={deleting?.map((w) => w.name) ?? null}
        busy={remove.isPending}
        onConfirm={confirmDelete}
        onCancel={() => setDeleting(null)}
      />
    </Box>
  );
}
