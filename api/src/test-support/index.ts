// @sandflow/api/testing: an in-memory database with the API's schema and a populated world, for
// benchmarks and cross-package tests.
export { createTestDatabase, destroyTestDatabase } from './database.js';
export { createWorld } from './world.js';
export { RUN_ACTION_RULES } from '../services/runs.js';
export { createHarness, lastMailTo, tokenInMail, type Harness } from './harness.js';
export { servicesFor } from '../services/index.js';
export { PNG_BYTES, type Tenant, type World } from './world.js';
