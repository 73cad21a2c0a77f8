import { Box } from '@mui/material';
import { Outlet } from 'react-router';
import { GlobalProgress } from './GlobalProgress';
import { MobileNavProvider } from './mobile-nav';
import { RealtimeProvider } from './realtime/RealtimeProvider';
import { TopBar } from './TopBar';

/** The authenticated application: progress bar, top bar, realtime socket, and the child route below. */
export function Shell() {
  return (
    <RealtimeProvider>
      <MobileNavProvider>
        <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
          <GlobalProgress />
          <TopBar />
          <Box component="main" sx={{ flex: 1, minWidth: 0 }}>
            <Outlet />
          </Box>
        </Box>
      </MobileNavProvider>
    </RealtimeProvider>
  );
}
