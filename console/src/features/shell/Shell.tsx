import { Outlet } from 'react-router';

// Scaffold: the top bar, navigation, bell and realtime come in the console issue.
export function Shell() {
  return <Outlet />;
}
