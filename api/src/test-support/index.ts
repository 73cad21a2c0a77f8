// @sandflow/api/testing: an in-memory database with the API's schema and a populated world, for
// benchmarks and cross-package tests.
export { createTestDatabase, destroyTestDatabase } from './database.js';
export { createWorld } from './world.js';
