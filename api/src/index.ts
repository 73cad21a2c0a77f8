export { createApp, API_BASE } from './app.js';
export { answerClientErrors } from './http/client-errors.js';
export { ApiMetrics, type ApiMetricsOptions } from './metrics.js';
export { attachRealtime, REALTIME_PATH, ACK } from './realtime.js';
export { attachTerminal } from './terminal.js';
export { attachRunLogs, RUN_LOG_PATH } from './log-socket.js';
export { LOCAL_DOMAIN, type ImagesDeps } from './services/images.js';
export { BUILDER_MISSING } from './services/containers.js';
export { migrateApi, rollbackApi, API_MIGRATIONS_TABLE } from './migrate.js';
export { loadApiConfig, defaultApiConfig, type ApiConfig } from './config.js';
export { createMailer, type Mailer, type MailMessage } from './services/mailer.js';
export { servicesFor, closeServices, type ApiDeps } from './services/index.js';
export { createKubeTenancy, type KubeTenancy, type Resources } from './services/kube-tenancy.js';

import { servicesFor, type ApiDeps } from './services/index.js';
import { resealStoredSecrets } from './services/secret-box-reseal.js';

/** First start: creates the super admin when the database has no users (prints a generated password once). */
export function ensureSuperAdmin(deps: ApiDeps, print?: (line: string) => void) {
  return servicesFor(deps).accounts.ensureSuperAdmin(print);
}

/**
 * The registry credentials of an organization (its own registry, else the platform default):
 * what the builder pulls and pushes with. Lazy, so the builder can be made before the app.
 */
export function registryCredentials(deps: ApiDeps, organizationId: string) {
  return servicesFor(deps).images.credentialsOf(organizationId);
}

/**
 * A startup step, after migrateApi: the registry passwords still stored in clear (saved before
 * encryption) or under SANDFLOW_SECRETS_KEY_PREVIOUS are sealed under SANDFLOW_SECRETS_KEY; logged
 * with counts. Without a key it only warns about the ones in clear.
 */
export function sealStoredSecrets(deps: ApiDeps) {
  return resealStoredSecrets({ db: deps.db, secrets: servicesFor(deps).secrets, logger: deps.logger });
}

/**
 * For GET /readyz: whether the resource caches (sandboxes, workflows) hold a full list; true
 * without a Kubernetes API. Until then the sandbox routes wait for them (then answer 503).
 */
export function resourcesSynced(deps: ApiDeps): boolean {
  const resources = servicesFor(deps).resources;
  return !resources || resources.isSynced();
}
export {
  AgentHub,
  AGENT_LOST_ANNOTATION,
  ARCHITECTURE_ANNOTATION,
  DEFAULT_LOST_AFTER_MS,
  type AgentHubOptions,
} from './agents/hub.js';
export { AGENT_PATH, type AgentMessage, type AppliedWorkflow, type HubMessage } from './agents/protocol.js';
