// Test helpers of the shell: a fetch stub answering like /api/v0 (`{ result, status }`,
// errors `{ result: null, status, error }`), a window.matchMedia answering for a window
// width, the fake WebSocket installed globally, and a render with the app's providers.
//
// Import this module FIRST in a test file: the typed client builds `new Request('/api/v0/…')`
// with the Request class it finds when it is created, and Node's Request refuses relative
// URLs (a browser resolves them against the page).
import { ThemeProvider } from '@mui/material';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
import { vi } from 'vitest';
import type { Me, Notification } from '../../api/types';
import { theme } from '../../app/theme';
import { toasts } from '../toasts/toast-store';
import { Toasts } from '../toasts/Toasts';
import { FakeWebSocket } from './realtime/fake-websocket';

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
  /** The path below /api/v0. */
  path: string;
  body: unknown;
}
export type ApiHandler = (call: ApiCall) => { status?: number; result?: unknown } | undefined;

/** Replaces fetch; unknown calls answer 404 like the API. Returns the calls, in order. */
export function stubApi(handler: ApiHandler = () => undefined) {
  const calls: ApiCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const type = request.headers.get('content-type') ?? '';
      const text = request.method === 'GET' ? '' : await request.text();
      const body = type.includes('json') && text ? JSON.parse(text) : text || undefined;
      const call = {
        method: request.method,
        path: new URL(request.url).pathname.replace(/^\/api\/v0/, ''),
        body,
      };
      calls.push(call);
      const answer = handler(call);
      const status = answer?.status ?? (answer ? 200 : 404);
      const envelope =
        status < 300
          ? { result: answer?.result ?? null, status }
          : { result: null, status, error: { code: 'error', message: 'Not found' } };
      return new Response(JSON.stringify(envelope), {
        status,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
  return calls;
}

/** window.matchMedia for a window `width` px wide (min-width / max-width queries). */
export function stubWindowWidth(width: number) {
  vi.stubGlobal('matchMedia', (query: string) => {
    const max = /max-width:\s*([\d.]+)px/.exec(query);
    const min = /min-width:\s*([\d.]+)px/.exec(query);
    const matches = (!max || width <= Number(max[1])) && (!min || width >= Number(min[1]));
    return {
      matches,
      media: query,
      onchange: null,
      addEventListener: () => {},
      removeEventListener: () => {},
      addListener: () => {},
      removeListener: () => {},
      dispatchEvent: () => false,
    };
  });
}

export function installFakeWebSocket() {
  FakeWebSocket.instances = [];
  vi.stubGlobal('WebSocket', FakeWebSocket);
}

export function dismissAllToasts() {
  for (const toast of toasts.get()) toasts.dismiss(toast.id);
}

export function newQueryClient() {
  return new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
}

/** Renders with the given QueryClient, the theme, a router at `route` and the toast stack. */
export function renderWithProviders(
  ui: ReactElement,
  { client = newQueryClient(), route = '/' }: { client?: QueryClient; route?: string } = {},
) {
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

export const ME: Me = {
  id: '5d2f3c1e-0000-4000-8000-000000000001',
  username: 'ada@example.org',
  email: 'ada@example.org',
  first_name: 'Ada',
  last_name: 'Lovelace',
  role: 'admin',
  uid: 1000,
  groups: [],
  organizations: [
    { id: 'org-1', name: 'Analytical Engines', role: 'admin' },
    { id: 'org-2', name: 'Difference Labs', role: 'user' },
  ],
  current_organization: 'org-1',
  preferences: { mail_notification: true },
  has_avatar: false,
};

export function notification(id: number, extra: Partial<Notification> = {}): Notification {
  return {
    id,
    title: `Run ${id} finished`,
    type: 'success',
    text: `Session ${id} ended`,
    timestamp: new Date().toISOString(),
    link: null,
    message_data: null,
    seen: false,
    ...extra,
  };
}
