// The session and run calls of spec 2 §7 as react-query hooks, with their structured keys. The
// realtime handler (../runs/realtime.ts) patches the same keys.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Run, RunAction, RunStatus, SessionBody, SessionItem, SessionType } from './types';

export const sessionKeys = {
  all: ['sessions'] as const,
  list: ['sessions', 'list'] as const,
  one: (type: SessionType, uuid: string) => ['sessions', 'one', type, uuid] as const,
  workflows: ['sessions', 'workflows'] as const,
  runs: (uuid: string) => ['sessions', 'runs', uuid] as const,
  groups: ['sessions', 'groups'] as const,
  contacts: ['sessions', 'contacts'] as const,
};
export const runKeys = {
  one: (uuid: string) => ['runs', 'one', uuid] as const,
  files: (uuid: string) => ['runs', 'files', uuid] as const,
  variables: (uuid: string, status: RunStatus | undefined) =>
    ['runs', 'variables', uuid, status ?? ''] as const,
};

const path = <P extends Record<string, string>>(params: P) => ({ params: { path: params } });

export function useSessions() {
  return useQuery({
    queryKey: sessionKeys.list,
    queryFn: () => unwrap(api.GET('/session')),
  });
}

export function useSession(type: SessionType, uuid: string | undefined) {
  return useQuery({
    queryKey: sessionKeys.one(type, uuid ?? ''),
    queryFn: () =>
      type === 'event'
        ? unwrap(api.GET('/event/{uuid}', path({ uuid: uuid! })))
        : unwrap(api.GET('/schedule/{uuid}', path({ uuid: uuid! }))),
    enabled: Boolean(uuid),
    // The form owns the values once loaded: a refetch must not replace them under the user.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}

export function useSessionWorkflows() {
  return useQuery({
    queryKey: sessionKeys.workflows,
    queryFn: () => unwrap(api.GET('/session/workflows')),
    staleTime: 60_000,
  });
}

/** The caller's groups, for the session's group. */
export function useMyGroups() {
  return useQuery({
    queryKey: sessionKeys.groups,
    queryFn: () => unwrap(api.GET('/group/name')),
    staleTime: 60_000,
  });
}

/** The caller's contacts: the notification e-mails' suggestions. PUT replaces the whole list. */
export function useContacts() {
  return useQuery({
    queryKey: sessionKeys.contacts,
    queryFn: () => unwrap(api.GET('/contact')),
    staleTime: 60_000,
  });
}

export function useSaveContacts() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (contacts: { name?: string; email?: string; phone?: string }[]) =>
      unwrap(api.PUT('/contact', { body: { contacts } })),
    onSuccess: () => client.invalidateQueries({ queryKey: sessionKeys.contacts }),
  });
}

/** Save: POST without a uuid (create), PUT with one; answers the saved session's uuid. */
export function useSaveSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ uuid, body }: { uuid?: string; body: SessionBody }) => {
      const answer = uuid
        ? await unwrap(api.PUT('/session/{uuid}', { ...path({ uuid }), body }))
        : await unwrap(api.POST('/session', { body }));
      return answer.uuid;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: sessionKeys.list }),
  });
}

export function useCloneSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (uuid: string) => unwrap(api.POST('/session/{uuid}/clone', path({ uuid }))),
    onSuccess: () => client.invalidateQueries({ queryKey: sessionKeys.list }),
  });
}

export function useDeleteSessions() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (uuids: string[]) =>
      unwrap(api.DELETE('/session', { params: { query: { sessions: uuids.join(',') } } })),
    onSuccess: (_answer, uuids) => {
      client.setQueryData<SessionItem[]>(sessionKeys.list, (list) =>
        list?.filter((s) => !uuids.includes(s.uuid)),
      );
      return client.invalidateQueries({ queryKey: sessionKeys.list });
    },
  });
}

/** Start a saved session now (POST /session/fast); the run arrives by realtime and the list. */
export function useStartNow() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ uuid, workflow_uuid }: { uuid: string; workflow_uuid: string }) =>
      unwrap(api.POST('/session/fast', { body: { uuid, workflow_uuid } })),
    onSuccess: (_a, { uuid }) =>
      Promise.all([
        client.invalidateQueries({ queryKey: sessionKeys.list }),
        client.invalidateQueries({ queryKey: sessionKeys.runs(uuid) }),
      ]),
  });
}

export function useSessionRuns(type: SessionType, uuid: string, enabled = true) {
  return useQuery({
    queryKey: sessionKeys.runs(uuid),
    queryFn: (): Promise<Run[]> =>
      type === 'event'
        ? unwrap(api.GET('/event/{uuid}/run', path({ uuid })))
        : unwrap(api.GET('/schedule/{uuid}/run', path({ uuid }))),
    enabled,
  });
}

/** The run; `pollAfter` says when to ask again given how many answers came (false: not). */
export function useRun(uuid: string, pollAfter: (answers: number) => number | false) {
  return useQuery({
    queryKey: runKeys.one(uuid),
    queryFn: (): Promise<Run> => unwrap(api.GET('/run/{uuid}', path({ uuid }))),
    refetchInterval: (query) => pollAfter(query.state.dataUpdateCount),
    retry: false,
  });
}

export function useRunFiles(uuid: string, enabled: boolean) {
  return useQuery({
    queryKey: runKeys.files(uuid),
    queryFn: () => unwrap(api.GET('/file/{uuid}', path({ uuid }))),
    enabled,
  });
}

/**
 * GET /run/{uuid}/variables, asked again when the run's status changes (a run admitted or restarted
 * has a new Argo Workflow to read), the run's last answer kept on screen meanwhile.
 */
export function useRunVariables(uuid: string, status: RunStatus | undefined, enabled: boolean) {
  return useQuery({
    queryKey: runKeys.variables(uuid, status),
    queryFn: () => unwrap(api.GET('/run/{uuid}/variables', path({ uuid }))),
    placeholderData: (previous, query) => (query?.queryKey[2] === uuid ? previous : undefined),
    enabled,
    retry: false,
  });
}

export interface RunActionInput {
  run: string;
  /** The session it belongs to: its runs list and row are patched. */
  session: string;
  action: RunAction;
  sandbox?: string;
}

/** PUT /run/{uuid}; local state changes only on 200 (spec 2 §4), then from the answer/refetch. */
export function useRunAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ run, action, sandbox }: RunActionInput) =>
      unwrap(
        api.PUT('/run/{uuid}', {
          ...path({ uuid: run }),
          body: sandbox ? { action, sandbox } : { action },
        }),
      ),
    onSuccess: (_a, { run, session, action }) => {
      if (action === 'delete') {
        client.setQueryData<Run[]>(sessionKeys.runs(session), (runs) => runs?.filter((r) => r.uuid !== run));
      }
      return Promise.all([
        client.invalidateQueries({ queryKey: sessionKeys.runs(session) }),
        client.invalidateQueries({ queryKey: sessionKeys.list }),
        action === 'delete' ? undefined : client.invalidateQueries({ queryKey: runKeys.one(run) }),
      ]);
    },
  });
}
