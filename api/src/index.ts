export { createApp, API_BASE } from './app.js';
export { ApiMetrics, type ApiMetricsOptions } from './metrics.js';
export { attachRealtime, REALTIME_PATH, ACK } from './realtime.js';
export { migrateApi, rollbackApi, API_MIGRATIONS_TABLE } from './migrate.js';
export { loadApiConfig, defaultApiConfig, type ApiConfig } from './config.js';
export { createMailer, type Mailer, type MailMessage } from './services/mailer.js';
export { servicesFor, closeServices, type ApiDeps } from './services/index.js';
export { createKubeTenancy, type KubeTenancy, type Resources } from './services/kube-tenancy.js';

import { servicesFor, type ApiDeps } from './services/index.js';

/** First start: creates the super admin when the database has no users (prints a generated password once). */
export function ensureSuperAdmin(deps: ApiDeps, print?: (line: string) => void) {
  return servicesFor(deps).accounts.ensureSuperAdmin(print);
}
