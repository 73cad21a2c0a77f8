// The run dashboard's own calls (the run itself and its files are in ../sessions/queries.ts).
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { RunStatus } from '../sessions/types';

export const runVariablesKey = (uuid: string, status: RunStatus | undefined) =>
  ['runs', 'variables', uuid, status ?? ''] as const;

/**
 * GET /run/{uuid}/variables, asked again when the run's status changes (a run admitted or restarted
 * has a new Argo Workflow to read), the run's last answer kept on screen meanwhile.
 */
export function useRunVariables(uuid: string, status: RunStatus | undefined, enabled: boolean) {
  return useQuery({
    queryKey: runVariablesKey(uuid, status),
    queryFn: () => unwrap(api.GET('/run/{uuid}/variables', { params: { path: { uuid } } })),
    placeholderData: (previous, query) => (query?.queryKey[2] === uuid ? previous : undefined),
    enabled,
    retry: false,
  });
}
