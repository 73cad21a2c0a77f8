// The sandbox and builder calls (spec 1 §7.2) as react-query hooks, with their structured keys.
// Feature-local like the rest of the sandbox screens; api/queries.ts keeps the shell's calls.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { SandboxBody, SandboxListQuery, SandboxPage, Variable } from './types';

export const sandboxKeys = {
  all: ['sandboxes'] as const,
  list: (query: SandboxListQuery) => ['sandboxes', 'list', query] as const,
  one: (uuid: string) => ['sandboxes', 'one', uuid] as const,
  avatar: (uuid: string) => ['sandboxes', 'avatar', uuid] as const,
  image: (name: string) => ['image', name] as const,
  tags: ['tags'] as const,
};

/** Drops empty filters so the query string says only what was chosen. */
function listParams(query: SandboxListQuery) {
  return {
    page: query.page,
    size: query.size as 10 | 30 | 50,
    sort: query.sort,
    order: query.order,
    ...(query.search.trim() ? { search: query.search.trim() } : {}),
    ...(query.mine ? { mine: true } : {}),
    ...(query.visibility ? { visibility: query.visibility } : {}),
    ...(query.tag ? { tag: query.tag } : {}),
  };
}

/** One page of the list; the previous page stays on screen while the next loads. */
export function useSandboxes(query: SandboxListQuery) {
  return useQuery({
    queryKey: sandboxKeys.list(query),
    queryFn: async () => {
      const result = await unwrap(api.GET('/sandbox', { params: { query: listParams(query) } }));
      // Without ?execution=true the answer is always a page.
      return result as SandboxPage;
    },
    placeholderData: keepPreviousData,
  });
}

export function useSandbox(uuid: string | undefined) {
  return useQuery({
    queryKey: sandboxKeys.one(uuid ?? ''),
    queryFn: () => unwrap(api.GET('/sandbox/{uuid}', { params: { path: { uuid: uuid! } } })),
    enabled: Boolean(uuid),
  });
}

/** The sandbox's avatar as an object URL, or null (a 404 is an empty avatar, spec 1 §8). */
export function useSandboxAvatar(uuid: string | undefined) {
  return useQuery({
    queryKey: sandboxKeys.avatar(uuid ?? ''),
    enabled: Boolean(uuid),
    queryFn: async () => {
      const response = await fetch(`/api/v0/sandbox/${uuid}/avatar`, { credentials: 'include' });
      if (!response.ok) return null;
      return URL.createObjectURL(await response.blob());
    },
    staleTime: Infinity,
  });
}

/** The caller's tags (label and colour). */
export function useTags() {
  return useQuery({ queryKey: sandboxKeys.tags, queryFn: () => unwrap(api.GET('/tags')) });
}
export function useAddTag() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { label: string; color: string }) => unwrap(api.PUT('/tags', { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: sandboxKeys.tags }),
  });
}

/** GET /image/{name}: the image's versions, or a failure when it is unknown. */
export function useImageCheck(name: string) {
  return useQuery({
    queryKey: sandboxKeys.image(name),
    queryFn: () => unwrap(api.GET('/image/{name}', { params: { path: { name } } })),
    enabled: name.trim() !== '',
    retry: false,
    staleTime: 60_000,
  });
}

function useSandboxMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => client.invalidateQueries({ queryKey: sandboxKeys.all }),
  });
}

export const useRenameSandbox = () =>
  useSandboxMutation(({ uuid, name }: { uuid: string; name: string }) =>
    unwrap(api.PUT('/sandbox/{uuid}/name', { params: { path: { uuid } }, body: { name } })),
  );

export const useSaveVariables = () =>
  useSandboxMutation(({ uuid, variables }: { uuid: string; variables: Variable[] }) =>
    unwrap(api.PUT('/sandbox/{uuid}/variables', { params: { path: { uuid } }, body: { variables } })),
  );

export const useCloneSandbox = () =>
  useSandboxMutation((uuid: string) =>
    unwrap(api.POST('/sandbox/{uuid}/clone', { params: { path: { uuid } } })),
  );

export const useDeleteSandboxes = () =>
  useSandboxMutation(({ ids, force }: { ids: string[]; force: boolean }) =>
    unwrap(api.DELETE('/sandbox', { params: { query: { force } }, body: { sandboxes: ids } })),
  );

export const useCreateSandbox = () =>
  useSandboxMutation((body: SandboxBody) => unwrap(api.POST('/sandbox', { body })));

export const useUpdateSandbox = () =>
  useSandboxMutation((body: SandboxBody & { uuid: string }) =>
    unwrap(api.PUT('/sandbox/{uuid}', { params: { path: { uuid: body.uuid } }, body })),
  );

// --- the builder: containers, files, terminal (not cached: each call is an action) ---

export const builder = {
  /** POST /image: a container from the source image; its id. */
  start: (body: { source_image: string; source_version: string; name: string }) =>
    unwrap(api.POST('/image', { body })),
  /** POST /image/{uuid}: a container from a saved sandbox; its id. */
  startFromSandbox: (uuid: string, sandbox_name: string) =>
    unwrap(api.POST('/image/{uuid}', { params: { path: { uuid } }, body: { sandbox_name } })),
  stop: (container: string) => unwrap(api.DELETE('/image/{uuid}', { params: { path: { uuid: container } } })),
  /** On page unload: a beacon (DELETE cannot be one), DELETE with keepalive when beacons are refused. */
  stopOnUnload(container: string) {
    const url = `/api/v0/image/${encodeURIComponent(container)}/delete`;
    if (navigator.sendBeacon?.(url)) return;
    void fetch(`/api/v0/image/${encodeURIComponent(container)}`, {
      method: 'DELETE',
      credentials: 'include',
      keepalive: true,
    }).catch(() => undefined);
  },
  /** POST /container/{uuid}/archive: whether a file of that name is already there. */
  exists: (container: string, name: string) =>
    unwrap(api.POST('/container/{uuid}/archive', { params: { path: { uuid: container } }, body: { name } })),
  resize: (uuid: string, rows: number, cols: number) =>
    unwrap(api.POST('/terminal', { body: { uuid, rows, cols } })),
  /** POST /parse/variables: a csv, json or yml file as name/value rows. */
  parseVariables: (file: File) => {
    const form = new FormData();
    form.append('file', file);
    // Multipart bodies are not described in the OpenAPI document; openapi-fetch sends FormData as is.
    return unwrap(api.POST('/parse/variables', { body: form as never }));
  },
};
