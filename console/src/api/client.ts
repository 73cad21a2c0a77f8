import createClient from 'openapi-fetch';
import type { paths } from './schema.gen';

export const API_BASE = '/api/v0';

/** A failed call: the HTTP status (500 when there was no answer) and the API's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Every answer of /api/v0 is `{ result, status }`, plus `error` on failure. */
interface Envelope {
  result: unknown;
  status: number;
  error?: { code: string; message: string };
}

// --- requests in flight: drives the global progress indicator (spec 1 §2.2) ---
let inFlight = 0;
const inFlightListeners = new Set<() => void>();
function setInFlight(delta: number) {
  inFlight += delta;
  for (const listener of inFlightListeners) listener();
}
export const inFlightStore = {
  subscribe(listener: () => void) {
    inFlightListeners.add(listener);
    return () => inFlightListeners.delete(listener);
  },
  get: () => inFlight,
};

// --- 401 handling: one refresh attempt, shared by every call that failed meanwhile ---
let refreshing: Promise<boolean> | null = null;
let onSignedOut: () => void = () => {};
/** What happens when a guarded call still gets 401 after refreshing (the app sends people to /login). */
export function setSignedOutHandler(handler: () => void) {
  onSignedOut = handler;
}
function refreshOnce(): Promise<boolean> {
  // Refresh tokens rotate: two parallel refreshes with the same token would revoke the family.
  refreshing ??= fetch(`${API_BASE}/refresh`, { credentials: 'include' })
    .then((r) => r.ok)
    .catch(() => false)
    .finally(() => setTimeout(() => (refreshing = null), 0));
  return refreshing;
}
/** Calls that answer 401 as part of their meaning (a wrong password is not an expired session). */
const UNGUARDED = ['/login', '/refresh', '/logout', '/user', '/password', '/verify/', '/invite/'];
const isGuarded = (url: string) => {
  const path = new URL(url, location.origin).pathname.slice(API_BASE.length);
  return !UNGUARDED.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p));
};

async function sandflowFetch(request: Request): Promise<Response> {
  setInFlight(1);
  try {
    const retry = request.clone();
    const response = await fetch(request);
    if (response.status !== 401 || !isGuarded(request.url)) return response;
    if (!(await refreshOnce())) {
      onSignedOut();
      return response;
    }
    const again = await fetch(retry);
    if (again.status === 401) onSignedOut();
    return again;
  } finally {
    setInFlight(-1);
  }
}

/** The typed client of /api/v0, generated from api/openapi.yaml (`npm run generate:client -w console`). */
export const api = createClient<paths>({
  baseUrl: API_BASE,
  credentials: 'include',
  fetch: sandflowFetch,
});

/** What openapi-fetch resolves to: the success body as `data`, or the failure body as `error`. */
type Outcome<D> = { data?: D; error?: unknown; response: Response };

/**
 * Unwraps an openapi-fetch answer: the `result` on success, typed from the OpenAPI
 * document, else an ApiError carrying the status (500 when there was no answer) and the
 * server's message.
 */
export async function unwrap<D extends { result: unknown }>(call: Promise<Outcome<D>>): Promise<D['result']> {
  let outcome: Outcome<D>;
  try {
    outcome = await call;
  } catch (e) {
    throw new ApiError(500, 'network', (e as Error).message);
  }
  if (outcome.response.ok && outcome.data) return outcome.data.result;
  const failure = failureOf(outcome.error);
  throw new ApiError(
    outcome.response.status || 500,
    failure?.code ?? 'unknown',
    failure?.message ?? outcome.response.statusText,
  );
}

/** The `error` of a failure envelope, when the body is one. */
export function failureOf(body: unknown): Envelope['error'] {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const { error } = body;
  return typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    'message' in error &&
    typeof error.code === 'string' &&
    typeof error.message === 'string'
    ? { code: error.code, message: error.message }
    : undefined;
}
