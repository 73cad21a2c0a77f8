import { defineConfig } from 'vitest/config';

// Cross-package run suites: kube-lite + the operator + the local runner in-process.
// Run with: npx vitest run -c tests/runs/vitest.config.ts
export default defineConfig({
  test: {
    name: 'runs',
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/runs/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
