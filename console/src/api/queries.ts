import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import { api, ApiError, failureOf, unwrap } from './client';
import type { AuditEvent, Me, Notification } from './answers';

/** Structured query keys: one place, so realtime handlers and mutations patch the right entries. */
export const keys = {
  me: ['me'] as const,
  organization: ['organization'] as const,
  notifications: ['notifications'] as const,
  events: ['events'] as const,
  latestEvents: ['events', 'latest'] as const,
  platformPreferences: ['platform', 'preferences'] as const,
  invitation: (token: string) => ['invitation', token] as const,
  avatar: (userId: string) => ['avatar', userId] as const,
  outbox: (to: string) => ['outbox', to] as const,
};

/** The signed-in person, or null when nobody is (a 401 is an answer here, not an error). */
export function useMe() {
  return useQuery({
    queryKey: keys.me,
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/me'));
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) return null;
        throw e;
      }
    },
    staleTime: 60_000,
  });
}

export function useOrganization(enabled = true) {
  return useQuery({
    queryKey: keys.organization,
    queryFn: () => unwrap(api.GET('/organization')),
    enabled,
  });
}

/** allow_new_organization and the bot-check widget for the sign-up page (public). */
export function usePlatformPreferences() {
  return useQuery({
    queryKey: keys.platformPreferences,
    queryFn: () => unwrap(api.GET('/illumina/preferences')),
  });
}

export function useInvitation(token: string | null) {
  return useQuery({
    queryKey: keys.invitation(token ?? ''),
    queryFn: () => unwrap(api.GET('/invite/{token}', { params: { path: { token: token! } } })),
    enabled: Boolean(token),
    retry: false,
  });
}

/**
 * The bell: the newest notifications first, at most 7 kept (spec 1 §9), and how many
 * arrived unseen (the badge can exceed the list). Unseen ones are fetched once on
 * sign-in; realtime messages are added with `addNotification` (no refetch).
 */
export const NOTIFICATION_LIST_MAX = 7;
export interface NotificationList {
  items: Notification[];
  unseen: number;
}
export function useNotifications(enabled: boolean) {
  return useQuery({
    queryKey: keys.notifications,
    queryFn: async (): Promise<NotificationList> => {
      const fresh = await unwrap(api.GET('/notifications/new'));
      return {
        items: fresh.map((n) => ({ ...n, seen: false })).slice(0, NOTIFICATION_LIST_MAX),
        unseen: fresh.length,
      };
    },
    enabled,
    staleTime: Infinity,
  });
}
export function addNotification(client: QueryClient, notification: Notification) {
  client.setQueryData<NotificationList>(keys.notifications, (list = { items: [], unseen: 0 }) => {
    const known = list.items.some((n) => n.id === notification.id);
    return {
      items: [notification, ...list.items.filter((n) => n.id !== notification.id)].slice(
        0,
        NOTIFICATION_LIST_MAX,
      ),
      unseen: known ? list.unseen : list.unseen + 1,
    };
  });
}
export function markNotificationsSeen(client: QueryClient) {
  client.setQueryData<NotificationList>(keys.notifications, (list = { items: [], unseen: 0 }) => ({
    items: list.items.map((n) => ({ ...n, seen: true })),
    unseen: 0,
  }));
}

/** The events log: pages of 30 from 0, newest first; an empty page is the end of the log. */
export function useEvents(enabled = true) {
  return useInfiniteQuery({
    queryKey: keys.events,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/illumina/events', { params: { query: { page: pageParam } } })),
    initialPageParam: 0,
    getNextPageParam: (last, _all, lastPage) => (last.length === 0 ? undefined : lastPage + 1),
    enabled,
  });
}

/** How often the events log asks page 0 again for what arrived since it was opened. */
export const EVENTS_POLL_MS = 15_000;
/**
 * Page 0 of the events log, asked again every 15 s (the log's 'Currently' block). Seeded with
 * the page the log itself loaded, so opening the log costs one request, not two.
 */
export function useLatestEvents(seed: AuditEvent[] | undefined, seededAt: number) {
  return useQuery({
    queryKey: keys.latestEvents,
    queryFn: () => unwrap(api.GET('/illumina/events', { params: { query: { page: 0 } } })),
    enabled: seed !== undefined,
    initialData: seed,
    initialDataUpdatedAt: seededAt,
    staleTime: EVENTS_POLL_MS,
    refetchInterval: EVENTS_POLL_MS,
  });
}

// --- mutations ---

export interface LoginInput {
  username: string;
  password: string;
  invitation_link?: string;
  backUrl?: string;
}
export function useLogin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ backUrl, ...body }: LoginInput) =>
      unwrap(api.POST('/login', { body, headers: backUrl ? { 'X-Back-Url': backUrl } : {} })),
    // `me` goes back to pending without being fetched here: the guards show a spinner instead
    // of acting on the old `null`, and the guard of the page the login goes to fetches it when
    // it mounts. Fetching it now would let /login's own guard (already authenticated → /dashboard)
    // overtake the login page's navigation to its back URL.
    onSuccess: () => client.getQueryCache().find({ queryKey: keys.me, exact: true })?.reset(),
  });
}

export function useLogout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.GET('/logout')),
    onSettled: () => {
      client.clear();
      client.setQueryData(keys.me, null);
    },
  });
}

export interface Registration {
  first_name: string;
  last_name: string;
  email: string;
  password: string;
  use_invitation: boolean;
  organization?: string;
  invitation_link?: string;
  re_captcha_token?: string;
}
export function useRegister() {
  return useMutation({ mutationFn: (body: Registration) => unwrap(api.POST('/user', { body })) });
}

export function useVerify(token: string) {
  return useQuery({
    queryKey: ['verify', token],
    queryFn: () => unwrap(api.GET('/verify/{token}', { params: { path: { token } } })),
    retry: false,
    staleTime: Infinity,
  });
}

export function useForgotPassword() {
  return useMutation({
    mutationFn: (username: string) => unwrap(api.POST('/password', { body: { username } })),
  });
}

export function useResetPassword(token: string) {
  return useMutation({
    mutationFn: (password: string) =>
      unwrap(api.POST('/password/{token}', { params: { path: { token } }, body: { password } })),
  });
}

export function useChangePassword() {
  return useMutation({
    mutationFn: (body: { old_password: string; new_password: string }) =>
      unwrap(api.PUT('/password', { body })),
  });
}

/** Switching organization re-issues the tokens (cookies); everything cached belongs to the old one. */
export function useSwitchOrganization() {
  // No cache reset here: the caller reloads the page at / (spec 1 §7.1), which starts
  // from an empty cache; resetting first only flashed a spinner before the reload.
  return useMutation({
    mutationFn: (name: string) => unwrap(api.POST('/preferences/organization', { body: { name } })),
  });
}

export function useSetMailNotification() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (mail_notification: boolean) =>
      unwrap(api.PUT('/preferences/user', { body: { preferences: { mail_notification } } })),
    onSuccess: (_r, mail_notification) =>
      client.setQueryData<Me | null>(keys.me, (me) =>
        me ? { ...me, preferences: { ...me.preferences, mail_notification } } : me,
      ),
  });
}

export function useCreateOrganization() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; admins: string[] }) =>
      unwrap(api.POST('/organizations', { body: { ...body, quota: { cpu: 0, memory: 0, disk: 0 } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.me }),
  });
}

export function useFeedback() {
  return useMutation({
    mutationFn: (body: { subject: string; content: string }) => unwrap(api.POST('/feedback', { body })),
  });
}

/** The avatar as an object URL, or null when the person has none (404 is not an error). */
export function useAvatar(userId: string | undefined, hasAvatar: boolean | undefined) {
  return useQuery({
    queryKey: keys.avatar(userId ?? ''),
    enabled: Boolean(userId && hasAvatar),
    queryFn: async () => {
      const response = await fetch(`/api/v0/user/${userId}/avatar`, { credentials: 'include' });
      if (response.status === 404) return null;
      if (!response.ok) throw new ApiError(response.status, 'avatar', response.statusText);
      return URL.createObjectURL(await response.blob());
    },
    staleTime: Infinity,
  });
}

export function useUploadAvatar(userId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (file: File) => {
      const response = await fetch(`/api/v0/user/${userId}/avatar`, {
        method: 'PUT',
        credentials: 'include',
        headers: { 'Content-Type': file.type },
        body: file,
      });
      if (!response.ok) {
        const failure = failureOf(await response.json().catch(() => null));
        throw new ApiError(response.status, failure?.code ?? 'avatar', failure?.message ?? '');
      }
    },
    onSuccess: () => {
      client.setQueryData<Me | null>(keys.me, (me) => (me ? { ...me, has_avatar: true } : me));
      return client.invalidateQueries({ queryKey: keys.avatar(userId) });
    },
  });
}

/** The mail outbox (super admin only), newest first, optionally for one recipient. */
export function useOutbox(to: string) {
  return useQuery({
    queryKey: keys.outbox(to),
    queryFn: () => unwrap(api.GET('/admin/outbox', { params: { query: to ? { to } : {} } })),
  });
}
