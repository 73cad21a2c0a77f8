// The cluster-manager, registry and mount-point calls of spec 3 §7 as react-query hooks with
// structured keys. Every change refreshes the cluster list and the current organization.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { keys as shellKeys } from '../../../api/queries';
import type { Result } from '../../../api/answers';

type Item<T> = T extends (infer I)[] ? I : never;
export type ClusterItem = Item<Result<'getCluster'>>;
export type Algorithm = NonNullable<Result<'getOrganization'>>['algorithm'];
export type CurrentOrganization = NonNullable<Result<'getOrganization'>>;

/** The cluster list refreshes every 10 seconds on Organization Settings (spec 3 §4, §9). */
export const CLUSTER_REFRESH_MS = 10_000;
/** The scheduler algorithm is saved 1 second after the selection changes (spec 3 §4, §9). */
export const ALGORITHM_SAVE_DELAY_MS = 1_000;

export const clusterKeys = {
  all: ['clusters'] as const,
  list: ['clusters', 'list'] as const,
};

const cluster = (id: string) => ({ params: { path: { id } } });

function useInvalidateClusters() {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: clusterKeys.all }),
      client.invalidateQueries({ queryKey: shellKeys.organization }),
    ]);
}

/** The cluster managers the caller sees (all of them for the super admin). */
export function useClusters(refetchInterval: number | undefined = CLUSTER_REFRESH_MS) {
  return useQuery({
    queryKey: clusterKeys.list,
    queryFn: () => unwrap(api.GET('/cluster')),
    refetchInterval,
  });
}

/** A new cluster manager and the token its agent registers with (answered only here). */
export function useCreateCluster() {
  const invalidate = useInvalidateClusters();
  return useMutation({
    mutationFn: (body: { organizations?: string[]; public?: boolean }) =>
      unwrap(api.POST('/cluster', { body })),
    onSuccess: invalidate,
  });
}

export function useRenameCluster() {
  const invalidate = useInvalidateClusters();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) =>
      unwrap(api.PUT('/cluster/{id}/name', { ...cluster(id), body: { name } })),
    onSuccess: invalidate,
  });
}

export function useSetClusterVisibility() {
  const invalidate = useInvalidateClusters();
  return useMutation({
    mutationFn: ({ id, ...body }: { id: string; is_public: boolean; organizations?: string[] }) =>
      unwrap(api.PUT('/cluster/{id}', { ...cluster(id), body: { id, ...body } })),
    onSuccess: invalidate,
  });
}

/** The super admin deletes; an organization admin unlinks it from their organization. */
export function useDeleteCluster() {
  const invalidate = useInvalidateClusters();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/cluster/{id}', cluster(id))),
    onSuccess: invalidate,
  });
}

export function useSetClusterDisabled() {
  const invalidate = useInvalidateClusters();
  return useMutation({
    mutationFn: ({ organization, id, disabled }: { organization: string; id: string; disabled: boolean }) => {
      const params = { params: { path: { id: organization, clusterId: id } } };
      return disabled
        ? unwrap(api.PUT('/organizations/{id}/disable/{clusterId}', params))
        : unwrap(api.DELETE('/organizations/{id}/disable/{clusterId}', params));
    },
    onSuccess: invalidate,
  });
}

export function useSetAlgorithm() {
  const invalidate = useInvalidateClusters();
  return useMutation({
    mutationFn: ({ organization, algorithm }: { organization: string; algorithm: Algorithm }) =>
      unwrap(api.PUT('/organizations/{id}/algorithm', { ...cluster(organization), body: { algorithm } })),
    onSuccess: invalidate,
  });
}

export interface RegistryBody {
  use_custom: boolean;
  url?: string;
  username?: string;
  password?: string;
}

export function useSaveRegistry() {
  const invalidate = useInvalidateClusters();
  return useMutation({
    mutationFn: ({ organization, registry }: { organization: string; registry: RegistryBody }) =>
      unwrap(
        api.PUT('/organizations/{id}/registry', {
          ...cluster(organization),
          body: { id: organization, registry },
        }),
      ),
    onSuccess: invalidate,
  });
}

export interface MountBody {
  base_path: string;
  mount_points: string[];
  safe_mount: boolean;
}

export function useSaveMountPoints() {
  const invalidate = useInvalidateClusters();
  return useMutation({
    mutationFn: ({ organization, ...body }: MountBody & { organization: string }) =>
      unwrap(
        api.PUT('/organizations/{id}/mount', {
          ...cluster(organization),
          body: { id: organization, ...body },
        }),
      ),
    onSuccess: invalidate,
  });
}
