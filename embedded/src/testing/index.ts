// @sandflow/embedded/testing: the embedded platform for cross-package tests and benchmarks (never
// loaded by `npm start`).
export { BwrapBuilder, reapBuilders } from '../builder/index.js';
export { installCrds, readCrds } from '../crd-install.js';
export { createDatabase, createTestDatabase } from '../db/database.js';
export { startKubeLite, type KubeLite, type KubeletOptions } from '../kube-lite/index.js';
export { startTestCluster } from '../runner/testing.js';
export { ROOT, listRuns, logger, startEnv, until, type Env } from './platform.js';
export { chain, createRun, patchRun } from './run-fixtures.js';
export {
  openTerminalSocket,
  terminalOutput,
  type TerminalOutput,
  type TerminalSocket,
} from './terminal-output.js';
