import { Box, CircularProgress } from '@mui/material';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useMe } from '../api/queries';

export function FullPageSpinner() {
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '60vh' }}>
      <CircularProgress aria-label="loading" />
    </Box>
  );
}

/** Unauthenticated people are sent to /login, remembering where they were going (backurl). */
export function RequireAuth({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <FullPageSpinner />;
  if (!me.data) {
    const back = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?backurl=${encodeURIComponent(back)}`} replace />;
  }
  return children;
}

/** /login and /signup: an authenticated person goes to /dashboard (spec 1 §2.1). */
export function RedirectIfAuthenticated({ children }: { children: ReactNode }) {
  const me = useMe();
  if (me.isPending) return <FullPageSpinner />;
  if (me.data) return <Navigate to="/dashboard" replace />;
  return children;
}
