import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { FullPageSpinner, RedirectIfAuthenticated, RequireAuth } from './guards';

// Every screen is its own chunk (route-level code splitting).
const page = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({
  Component: (await load()).default,
});
const notYet = (screen: string) => async () => {
  const { NotYetPage } = await import('../features/placeholder/NotYetPage');
  return { Component: () => <NotYetPage screen={screen} /> };
};

/** Spec 1 §2.1's route table. Screens of later issues are plain 'not built yet' pages. */
const topLevel: RouteObject[] = [
  {
    path: '/login',
    lazy: async () => {
      const { default: LoginPage } = await import('../features/auth/LoginPage');
      return {
        Component: () => (
          <RedirectIfAuthenticated>
            <LoginPage />
          </RedirectIfAuthenticated>
        ),
      };
    },
  },
  { path: '/signup', lazy: page(() => import('../features/auth/SignupPage')) },
  { path: '/verification/:token', lazy: page(() => import('../features/auth/VerificationPage')) },
  { path: '/password/:token', lazy: page(() => import('../features/auth/PasswordResetPage')) },
  {
    path: '/',
    lazy: async () => {
      const { Shell } = await import('../features/shell/Shell');
      return {
        Component: () => (
          <RequireAuth>
            <Shell />
          </RequireAuth>
        ),
      };
    },
    children: [
      { index: true, element: <Navigate to="/dashboard" replace /> },
      { path: 'dashboard', lazy: page(() => import('../features/dashboard/DashboardPage')) },
      { path: 'dashboard/session/:uuid/:run', lazy: page(() => import('../features/runs/RunDashboardPage')) },
      { path: 'sandbox/list', lazy: page(() => import('../features/sandboxes/SandboxListPage')) },
      { path: 'sandbox/create', lazy: page(() => import('../features/sandboxes/SandboxPage')) },
      { path: 'sandbox/settings', lazy: notYet('sandboxSettings') },
      { path: 'sandbox/:action/:uuid', lazy: page(() => import('../features/sandboxes/SandboxPage')) },
      { path: 'workflow/create', lazy: page(() => import('../features/workflows/WorkflowEditorPage')) },
      { path: 'workflow/list', lazy: page(() => import('../features/workflows/list/WorkflowListPage')) },
      {
        path: 'workflow/:action/:uuid',
        lazy: page(() => import('../features/workflows/WorkflowEditorPage')),
      },
      { path: 'session/create', lazy: page(() => import('../features/sessions/SessionFormPage')) },
      { path: 'session/list', lazy: page(() => import('../features/sessions/SessionListPage')) },
      { path: 'schedule/:uuid', lazy: page(() => import('../features/sessions/SessionFormPage')) },
      { path: 'event/:uuid', lazy: page(() => import('../features/sessions/SessionFormPage')) },
      { path: 'application/list', lazy: notYet('applications') },
      { path: 'application/sentinel2ndvi', lazy: notYet('applications') },
      { path: 'settings/admin', lazy: page(() => import('../features/settings/super/SuperSettingsPage')) },
      {
        path: 'settings/organization',
        lazy: page(() => import('../features/settings/organization/OrganizationSettingsPage')),
      },
      { path: 'settings/users', lazy: page(() => import('../features/settings/users/UsersSettingsPage')) },
      { path: 'billing', lazy: page(() => import('../features/billing/BillingPage')) },
      { path: 'profile', lazy: page(() => import('../features/profile/ProfilePage')) },
      { path: 'logs', lazy: page(() => import('../features/logs/LogsPage')) },
      // Not in the spec's route table: the mail kept without SMTP (super admin, see settings-entries).
      { path: 'outbox', lazy: page(() => import('../features/outbox/OutboxPage')) },
      // Unknown paths redirect to the dashboard (spec 1 §2.1).
      { path: '*', element: <Navigate to="/dashboard" replace /> },
    ],
  },
];

/** While the first screen's chunk loads, a spinner (react-router's HydrateFallback). */
export const routes: RouteObject[] = topLevel.map((route) => ({
  ...route,
  HydrateFallback: FullPageSpinner,
}));

export const createRouter = () => createBrowserRouter(routes);
