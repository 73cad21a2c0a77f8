// Renders with the providers of App.tsx: a fresh QueryClient (no retries), the theme, a
// router and the toast stack.
import { ThemeProvider } from '@mui/material';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import {
  createMemoryRouter,
  MemoryRouter,
  Outlet,
  RouterProvider,
  useLocation,
  type RouteObject,
} from 'react-router';
import { theme } from '../app/theme';
import { toasts } from '../features/toasts/toast-store';
import { Toasts } from '../features/toasts/Toasts';

export function newQueryClient() {
  return new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
}

function Providers({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <ThemeProvider theme={theme}>
      <QueryClientProvider client={client}>
        {children}
        <Toasts />
      </QueryClientProvider>
    </ThemeProvider>
  );
}

/** Renders `ui` in a MemoryRouter at `route`, with the given (or a fresh) QueryClient. */
export function renderWithProviders(
  ui: ReactElement,
  { client = newQueryClient(), route = '/' }: { client?: QueryClient; route?: string } = {},
) {
  const result = render(
    <Providers client={client}>
      <MemoryRouter initialEntries={[route]}>{ui}</MemoryRouter>
    </Providers>,
  );
  return { client, ...result };
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
  client?: QueryClient;
}

/**
 * Renders `element` at `url` (matched by `path`) in a memory data router like the app's,
 * with the location shown in `data-testid="location"`.
 */
export function renderPage(
  element: ReactNode,
  { url, path, elsewhere = <div>elsewhere</div>, elsewhereLoadMs, client = newQueryClient() }: PageOptions,
) {
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
  const result = render(
    <Providers client={client}>
      <RouterProvider router={router} />
    </Providers>,
  );
  return { ...result, client, router };
}

/** Toasts live in a module store: each test starts without the previous one's. */
export function clearToasts() {
  for (const toast of toasts.get()) toasts.dismiss(toast.id);
}
