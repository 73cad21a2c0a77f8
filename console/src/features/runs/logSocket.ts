// The run log socket's protocol (api/src/log-socket.ts): JSON frames `{live}`, `{log}`, `{end}`,
// `{earlier, complete}` and `{error}`; the page asks `{more: N}` for earlier lines.

/** Lines asked for first and per 'Load earlier' (the socket's default tail; its `more` cap). */
export const LOG_TAIL = 1000;
export const LOG_MORE = 1000;

export const logUrl = (run: string, sandboxId: string, name: string, tail = LOG_TAIL) =>
  `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v0/log/${encodeURIComponent(run)}/${encodeURIComponent(sandboxId)}/${encodeURIComponent(name)}?tail=${tail}`;

/** The whole log as a download (GET /file/{run}/{sandboxId}/{name}). */
export const logDownloadUrl = (run: string, sandboxId: string, name: string) =>
  `/api/v0/file/${encodeURIComponent(run)}/${encodeURIComponent(sandboxId)}/${encodeURIComponent(name)}`;

/** An output file (GET /file/{run}/{sandboxId}/{sandbox}/{filename}). */
export const fileDownloadUrl = (run: string, sandboxId: string, sandbox: string, filename: string) =>
  `/api/v0/file/${[run, sandboxId, sandbox, filename].map(encodeURIComponent).join('/')}`;

export type LogFrame =
  | { kind: 'live'; live: boolean }
  | { kind: 'log'; text: string }
  | { kind: 'end' }
  | { kind: 'earlier'; text: string; complete: boolean }
  | { kind: 'error'; message: string };

/** One frame, or null when it is not one of the protocol's. */
export function parseFrame(data: unknown): LogFrame | null {
  if (typeof data !== 'string') return null;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  if (typeof value.error === 'string') return { kind: 'error', message: value.error };
  if (typeof value.earlier === 'string')
    return { kind: 'earlier', text: value.earlier, complete: value.complete === true };
  if (typeof value.log === 'string') return { kind: 'log', text: value.log };
  if (value.end === true) return { kind: 'end' };
  if (typeof value.live === 'boolean') return { kind: 'live', live: value.live };
  return null;
}
