// Test helpers for screens that talk to /api/v0: a fetch stub that answers like the API
// (`{ result, status }`, errors `{ result: null, status, error: { code, message } }`) and a
// render with the providers of App.tsx.
//
// Import this module FIRST in a test file: the typed client builds `new Request('/api/v0/…')`
// with the Request class it finds when it is created, and Node's Request refuses relative URLs
// (a browser resolves them against the page). The class installed here resolves them against
// jsdom's location before the client module is loaded.
import { ThemeProvider } from '@mui/material';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
import { vi } from 'vitest';
import { theme } from '../../app/theme';
import { Toasts } from '../toasts/Toasts';

const NodeRequest = globalThis.Request;
if (!(NodeRequest as { resolvesRelative?: boolean }).resolvesRelative) {
  class BrowserLikeRequest extends NodeRequest {
    static resolvesRelative = true;
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' ? new URL(input, location.origin) : input, init);
    }
  }
  globalThis.Request = BrowserLikeRequest as typeof Request;
}

export interface ApiCall {
  method: string;
  /** The path below /api/v0, e.g. '/illumina/events'. */
  path: string;
  query: URLSearchParams;
  /** The JSON body, parsed; other bodies as a Blob. */
  body: unknown;
}
export interface ApiAnswer {
  status?: number;
  result?: unknown;
  /** A failure: the API's error message (status defaults to 400). */
  error?: string;
  code?: string;
}
export type ApiHandler = (call: ApiCall) => ApiAnswer | Promise<ApiAnswer> | undefined;

/**
 * Replaces fetch with `handler`; unknown calls answer 404 like the API. Returns the list of
 * calls made, in order.
 */
export function stubApi(handler: ApiHandler) {
  const calls: ApiCall[] = [];
  const fetchStub = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const type = request.headers.get('content-type') ?? '';
    const body =
      request.method === 'GET' || request.method === 'HEAD'
        ? undefined
        : type.includes('json')
          ? await request.json()
          : await request.blob();
    const call = {
      method: request.method,
      path: url.pathname.replace(/^\/api\/v0/, ''),
      query: url.searchParams,
      body,
    };
    calls.push(call);
    const answer = (await handler(call)) ?? { status: 404, error: 'Not found', code: 'not_found' };
    const status = answer.status ?? (answer.error ? 400 : 200);
    const envelope = answer.error
      ? { result: null, status, error: { code: answer.code ?? 'bad_request', message: answer.error } }
      : { result: answer.result ?? null, status };
    return new Response(JSON.stringify(envelope), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchStub);
  return calls;
}

/** Renders with a fresh QueryClient (no retries), the theme, a router and the toast stack. */
export function renderWithProviders(ui: ReactElement, { route = '/' }: { route?: string } = {}) {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const result = render(
    <ThemeProvider theme={theme}>
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[route]}>{ui}</MemoryRouter>
        <Toasts />
      </QueryClientProvider>
    </ThemeProvider>,
  );
  return { client, ...result };
}
