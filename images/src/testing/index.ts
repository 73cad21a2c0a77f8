// Test helpers of @sandflow/images: a real docker-registry and in-memory image fixtures.
export * from './registry.js';
export * from './fixtures.js';
