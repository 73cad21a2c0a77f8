// A fetch that answers like /api/v0 does: `{ result, status }`, and on failure
// `{ result: null, status, error: { code, message } }`.
import { vi } from 'vitest';

/** A call the console made, as the handler and the test see it. */
export interface ApiCall {
  method: string;
  /** The path below /api/v0, without the query, e.g. '/illumina/events'. */
  path: string;
  /** `${method} ${path}`, e.g. 'POST /login'. */
  key: string;
  query: URLSearchParams;
  /** The JSON body, parsed; another body as a Blob; undefined without a body. */
  body: unknown;
  request: Request;
}

/** What the stub answers. */
export interface ApiAnswer {
  /** 200 by default, 400 with an `error`. */
  status?: number;
  result?: unknown;
  /** A failure: the API's error message (a status of 400 or more without one says 'failed'). */
  error?: string;
  code?: string;
}

/** Answers a call; undefined answers 404 like the API. */
export type ApiHandler = (call: ApiCall) => ApiAnswer | undefined | Promise<ApiAnswer | undefined>;

/** Handlers keyed `METHOD /path` (path below /api/v0, no query), e.g. 'POST /login'. */
export type ApiRoutes = Record<string, ApiHandler>;

const NOT_FOUND: ApiAnswer = { status: 404, error: 'Not found', code: 'not_found' };

async function readBody(request: Request): Promise<unknown> {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  const copy = request.clone();
  if (!(request.headers.get('content-type') ?? '').includes('json')) return copy.blob();
  const text = await copy.text();
  return text ? JSON.parse(text) : undefined;
}

/**
 * Replaces fetch with one that passes each call to `handler` (a function, or handlers by
 * route); unknown calls answer 404. Returns the calls made, in order.
 */
export function stubApi(handler: ApiHandler | ApiRoutes = {}): ApiCall[] {
  const answer: ApiHandler = typeof handler === 'function' ? handler : (call) => handler[call.key]?.(call);
  const calls: ApiCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const url = new URL(request.url);
      const path = url.pathname.replace(/^\/api\/v0/, '');
      const call: ApiCall = {
        method: request.method,
        path,
        key: `${request.method} ${path}`,
        query: url.searchParams,
        body: await readBody(request),
        request,
      };
      calls.push(call);
      const given = (await answer(call)) ?? NOT_FOUND;
      const status = given.status ?? (given.error === undefined ? 200 : 400);
      const envelope =
        given.error === undefined && status < 400
          ? { result: given.result ?? null, status }
          : {
              result: null,
              status,
              error: { code: given.code ?? 'bad_request', message: given.error ?? 'failed' },
            };
      return new Response(JSON.stringify(envelope), {
        status,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
  return calls;
}
