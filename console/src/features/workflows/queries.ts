// The workflow calls of spec 2 §7 as react-query hooks, with their structured keys.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Variable } from './graph/model';
import type { SavedWorkflow, Visibility, WorkflowBody, WorkflowListQuery, WorkflowPage } from './types';

export const workflowKeys = {
  all: ['workflows'] as const,
  lists: ['workflows', 'list'] as const,
  list: (query: WorkflowListQuery) => ['workflows', 'list', query] as const,
  one: (uuid: string) => ['workflows', 'one', uuid] as const,
  palette: ['workflows', 'palette'] as const,
};

/** Drops empty filters so the query string says only what was chosen. */
function listParams(query: WorkflowListQuery) {
  return {
    page: query.page,
    size: query.size,
    sort: query.sort,
    order: query.order,
    ...(query.search.trim() ? { search: query.search.trim() } : {}),
    ...(query.mine ? { mine: true } : {}),
    ...(query.visibility ? { visibility: query.visibility } : {}),
    ...(query.tag ? { tag: query.tag } : {}),
  };
}

/** A page of the list; the previous page stays on screen while the next loads. */
export function useWorkflows(query: WorkflowListQuery) {
  return useQuery({
    queryKey: workflowKeys.list(query),
    queryFn: async () =>
      (await unwrap(api.GET('/workflow', { params: { query: listParams(query) } }))) as WorkflowPage,
    placeholderData: keepPreviousData,
  });
}

const path = (uuid: string) => ({ params: { path: { uuid } } });

export function useWorkflow(uuid: string | undefined) {
  return useQuery({
    queryKey: workflowKeys.one(uuid ?? ''),
    queryFn: () => unwrap(api.GET('/workflow/{uuid}', path(uuid!))),
    enabled: Boolean(uuid),
    // The editor owns the drawing once loaded: a refetch must not replace it under the user.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}

/** After a change: the answered workflow replaces the cached one, the pages refetch. */
function useWorkflowMutation<V, R extends SavedWorkflow | { workflows: string[] }>(
  request: (vars: V) => Promise<R>,
) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: (answer) => {
      if ('uuid' in answer) client.setQueryData(workflowKeys.one(answer.uuid), answer);
      return client.invalidateQueries({ queryKey: workflowKeys.lists });
    },
  });
}

/** Save: POST (201, created) without a uuid, else PUT (200). */
export const useSaveWorkflow = () =>
  useWorkflowMutation(({ uuid, body }: { uuid?: string; body: WorkflowBody }) =>
    uuid
      ? unwrap(api.PUT('/workflow/{uuid}', { ...path(uuid), body }))
      : unwrap(api.POST('/workflow', { body })),
  );
export const useRenameWorkflow = () =>
  useWorkflowMutation(({ uuid, name }: { uuid: string; name: string }) =>
    unwrap(api.PUT('/workflow/{uuid}/name', { ...path(uuid), body: { name } })),
  );
export const useCloneWorkflow = () =>
  useWorkflowMutation((uuid: string) => unwrap(api.POST('/workflow/{uuid}/clone', path(uuid))));
export const useDeleteWorkflows = () =>
  useWorkflowMutation((uuids: string[]) => unwrap(api.DELETE('/workflow', { body: { workflows: uuids } })));
export const useWorkflowVisibility = () =>
  useWorkflowMutation(({ uuid, visibility }: { uuid: string; visibility: Visibility }) =>
    unwrap(api.PUT('/workflow/{uuid}/visibility', { ...path(uuid), body: visibility })),
  );
export const useWorkflowVariables = () =>
  useWorkflowMutation(
    ({ uuid, sandbox, variables }: { uuid: string; sandbox: string; variables: Variable[] }) =>
      unwrap(
        api.PUT('/workflow/{uuid}/variables/{sandbox}', {
          params: { path: { uuid, sandbox } },
          body: { variables },
        }),
      ),
  );

/** The palette: every sandbox the caller may use (GET /sandbox?execution=true), flattened. */
export function usePaletteSandboxes(enabled = true) {
  return useQuery({
    queryKey: workflowKeys.palette,
    enabled,
    queryFn: async () => {
      const result = await unwrap(api.GET('/sandbox', { params: { query: { execution: true } } }));
      return 'groups' in result ? result.groups.flatMap((g) => g.sandboxes) : result.sandboxes;
    },
    staleTime: 60_000,
  });
}
