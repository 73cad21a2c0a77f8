import { CssBaseline, ThemeProvider } from '@mui/material';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RouterProvider } from 'react-router';
import { ApiError, setSignedOutHandler } from '../api/client';
import { keys } from '../api/queries';
import { Toasts } from '../features/toasts/Toasts';
import { createRouter } from './router';
import { themeFor } from './theme';

function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx will not get better by asking again.
        retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
}

export function App() {
  const [client] = useState(createQueryClient);
  const { i18n } = useTranslation();
  const [router] = useState(() => {
    const router = createRouter();
    // A 401 that survives one refresh: the session is over; /login remembers where we were.
    setSignedOutHandler(() => {
      client.setQueryData(keys.me, null);
      const { pathname, search } = router.state.location;
      if (!['/login', '/signup'].includes(pathname) && !pathname.startsWith('/verification/'))
        void router.navigate(`/login?backurl=${encodeURIComponent(pathname + search)}`, { replace: true });
    });
    return router;
  });
  return (
    <ThemeProvider theme={themeFor(i18n.language)}>
      <CssBaseline />
      <QueryClientProvider client={client}>
        <RouterProvider router={router} />
        <Toasts />
      </QueryClientProvider>
    </ThemeProvider>
  );
}
