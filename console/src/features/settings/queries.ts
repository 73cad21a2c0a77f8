// The administration calls of spec 3 §7 as react-query hooks with structured keys. Mutations
// invalidate the lists they change; modals close on success only (status < 300).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys as shellKeys } from '../../api/queries';
import type { Resources } from './types';

/** Super Settings refreshes its data every 30 seconds (spec 3 §2.5, §9). */
export const SUPER_REFRESH_MS = 30_000;

export const settingsKeys = {
  all: ['settings'] as const,
  organizations: ['settings', 'organizations'] as const,
  capacity: ['settings', 'capacity'] as const,
  groups: (organization: string) => ['settings', 'groups', organization] as const,
  groupTables: ['settings', 'groupTables'] as const,
  organizationUsers: ['settings', 'organizationUsers'] as const,
  allUsers: ['settings', 'allUsers'] as const,
  usernames: ['settings', 'usernames'] as const,
  configuration: ['settings', 'configuration'] as const,
};

const id = (value: string) => ({ params: { path: { id: value } } });

/** Every mutation here changes something several tables show: refresh them all. */
function useInvalidateSettings() {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: settingsKeys.all }),
      client.invalidateQueries({ queryKey: shellKeys.organization }),
    ]);
}

export function useOrganizations(refetchInterval?: number) {
  return useQuery({
    queryKey: settingsKeys.organizations,
    queryFn: () => unwrap(api.GET('/organizations')),
    refetchInterval,
  });
}

export function useCapacity(enabled = true) {
  return useQuery({
    queryKey: settingsKeys.capacity,
    queryFn: () => unwrap(api.GET('/organizations/capacity')),
    enabled,
  });
}

/** '' is the current organization (or all of them for the super admin). */
export function useGroups(organization = '', refetchInterval?: number) {
  return useQuery({
    queryKey: settingsKeys.groups(organization),
    queryFn: () => unwrap(api.GET('/group', { params: { query: organization ? { organization } : {} } })),
    refetchInterval,
  });
}

export function useGroupTables() {
  return useQuery({
    queryKey: settingsKeys.groupTables,
    queryFn: () => unwrap(api.GET('/admin/group/users')),
  });
}

export function useOrganizationUsers() {
  return useQuery({
    queryKey: settingsKeys.organizationUsers,
    queryFn: () => unwrap(api.GET('/admin/users/organization')),
  });
}

export function useAllUsers(refetchInterval?: number) {
  return useQuery({
    queryKey: settingsKeys.allUsers,
    queryFn: () => unwrap(api.GET('/admin/users')),
    refetchInterval,
  });
}

export function useUsernames() {
  return useQuery({
    queryKey: settingsKeys.usernames,
    queryFn: () => unwrap(api.GET('/admin/username')),
  });
}

export function useConfiguration() {
  return useQuery({
    queryKey: settingsKeys.configuration,
    queryFn: () => unwrap(api.GET('/illumina/configuration')),
    refetchInterval: SUPER_REFRESH_MS,
  });
}

export interface GroupBody {
  organization?: string;
  name: string;
  quota?: Resources;
  gid?: number;
  use_free?: boolean;
  admins?: string[];
  members?: string[];
}

export function useSaveGroup() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: ({ id: groupId, ...body }: GroupBody & { id?: string }) =>
      groupId
        ? unwrap(api.PUT('/group/{id}', { ...id(groupId), body }))
        : unwrap(api.POST('/group', { body })),
    onSuccess: invalidate,
  });
}

export function useDeleteGroup() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: (groupId: string) => unwrap(api.DELETE('/group/{id}', id(groupId))),
    onSuccess: invalidate,
  });
}

export function useSetOrganizationAdmins() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: ({ organization, admins }: { organization: string; admins: string[] }) =>
      unwrap(api.PUT('/organizations/{id}/admin', { ...id(organization), body: { admins } })),
    onSuccess: invalidate,
  });
}

export function useInvite() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: (body: { users: string[]; organization?: string; default_group?: string }) =>
      unwrap(api.POST('/invite', { body })),
    onSuccess: invalidate,
  });
}

/** Deleting an account (super admin) or taking a member out of one organization (its admins). */
export function useRemoveUser() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: ({ user, organization }: { user: string; organization?: string }) =>
      organization
        ? unwrap(
            api.DELETE('/user/{id}/organization/{organization}', {
              params: { path: { id: user, organization } },
            }),
          )
        : unwrap(api.DELETE('/user/{id}', id(user))),
    onSuccess: invalidate,
  });
}

export function useRemoveFromGroup() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: ({ user, group }: { user: string; group: string }) =>
      unwrap(api.DELETE('/user/{id}/group/{group}', { params: { path: { id: user, group } } })),
    onSuccess: invalidate,
  });
}

export interface QuotaBody {
  quota: Resources & { group: string; use_percentage: boolean };
  uid?: number;
}

export function useSetUserQuota() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: ({ user, ...body }: QuotaBody & { user: string }) =>
      unwrap(api.PUT('/user/{id}/quota', { ...id(user), body })),
    onSuccess: invalidate,
  });
}

export interface OrganizationBody {
  name: string;
  quota: Resources;
  admins: string[];
  /** Edit Organization only (the super admin's fields, spec 3 §3, §7). */
  use_free?: boolean;
  enable_provisioner?: boolean;
  lock_provisioner?: boolean;
  automatic_resources?: Resources;
}

export function useSaveOrganization() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: ({ id: organization, ...body }: OrganizationBody & { id?: string }) =>
      organization
        ? unwrap(api.PUT('/organizations/{id}', { ...id(organization), body }))
        : unwrap(api.POST('/organizations', { body })),
    onSuccess: invalidate,
  });
}

export function useDeleteOrganization() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: ({ organization, purge }: { organization: string; purge: boolean }) =>
      unwrap(
        api.DELETE('/organizations/{id}', {
          params: { path: { id: organization }, query: purge ? { purge: true } : {} },
        }),
      ),
    onSuccess: invalidate,
  });
}

export interface ConfigurationBody {
  allow_new_organization?: boolean;
  disable_provisioning?: boolean;
  registry?: { url?: string; username?: string; password?: string };
}

export function useSaveConfiguration() {
  const invalidate = useInvalidateSettings();
  return useMutation({
    mutationFn: (body: ConfigurationBody) => unwrap(api.POST('/illumina/configuration', { body })),
    onSuccess: invalidate,
  });
}
