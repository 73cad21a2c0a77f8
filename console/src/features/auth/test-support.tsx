// Helpers of the auth screens' tests: the providers a page needs and a fetch that answers
// like /api/v0 does ({ result, status } or { result: null, status, error }).
//
// Import this module FIRST in a test file: the typed client captures the Request class when
// it is created, and Node's Request refuses the relative '/api/v0/…' URLs a browser resolves
// against the page; the class installed below resolves them against jsdom's location.
import { ThemeProvider } from '@mui/material';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, Outlet, RouterProvider, useLocation, type RouteObject } from 'react-router';
import { vi } from 'vitest';
import { theme } from '../../app/theme';
import { Toasts } from '../toasts/Toasts';
import { toasts } from '../toasts/toast-store';

const NodeRequest = globalThis.Request;
if (!(NodeRequest as { resolvesRelative?: boolean }).resolvesRelative) {
  class BrowserLikeRequest extends NodeRequest {
    static resolvesRelative = true;
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' ? new URL(input, location.href) : input, init);
    }
  }
  globalThis.Request = BrowserLikeRequest as typeof Request;
}

export interface Answer {
  status: number;
  result?: unknown;
  message?: string;
}
export type Handler = (request: Request, body: Record<string, unknown> | null) => Answer | Promise<Answer>;

/** Stubs fetch: handlers are keyed 'METHOD /path' (path below /api/v0, no query). Unknown calls answer 404. */
export function stubApi(handlers: Record<string, Handler>) {
  const calls: { key: string; request: Request; body: Record<string, unknown> | null }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const path = new URL(request.url, location.href).pathname.replace(/^\/api\/v0/, '');
    const key = `${request.method} ${path}`;
    const text = await request.clone().text();
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    calls.push({ key, request, body });
    const handler = handlers[key];
    const answer = handler ? await handler(request, body) : { status: 404, message: 'Not found' };
    const envelope =
      answer.status < 400
        ? { result: answer.result ?? null, status: answer.status }
        : {
            result: null,
            status: answer.status,
            error: { code: 'test', message: answer.message ?? 'failed' },
          };
    return new Response(JSON.stringify(envelope), {
      status: answer.status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

/** Shows where the router is, so tests can assert navigations. */
function Where() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

export interface PageOptions {
  url: string;
  path: string;
  /** What every other path shows. */
  elsewhere?: ReactNode;
  /** Load `elsewhere` lazily after this delay, like the app's route chunks. */
  elsewhereLoadMs?: number;
}

/**
 * Renders `element` at `url` (matched by `path`) in a memory data router like the app's,
 * with a fresh QueryClient, the theme and the toasts.
 */
export function renderPage(
  element: ReactNode,
  { url, path, elsewhere = <div>elsewhere</div>, elsewhereLoadMs }: PageOptions,
) {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const other: RouteObject =
    elsewhereLoadMs === undefined
      ? { path: '*', element: elsewhere }
      : {
          path: '*',
          lazy: async () => {
            await new Promise((resolve) => setTimeout(resolve, elsewhereLoadMs));
            return { element: elsewhere };
          },
        };
  const router = createMemoryRouter(
    [
      {
        element: (
          <>
            <Outlet />
            <Where />
          </>
        ),
        children: [{ path, element }, other],
      },
    ],
    { initialEntries: [url] },
  );
  const utils = render(
    <ThemeProvider theme={theme}>
      <QueryClientProvider client={client}>
        <RouterProvider router={router} />
        <Toasts />
      </QueryClientProvider>
    </ThemeProvider>,
  );
  return { ...utils, client, router };
}

/** Toasts live in a module store: each test starts without the previous one's. */
export function clearToasts() {
  for (const toast of toasts.get()) toasts.dismiss(toast.id);
}
