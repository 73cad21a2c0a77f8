import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Projects: `unit` is every *.test.ts beside the code; `kube` drives a Kubernetes API
// (kube-lite started by the global setup, or the server in KUBECONFIG when
// SANDFLOW_KUBE_TARGET=external).
export default defineConfig({
  test: {
    reporters: ['default', './tests/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{kube,images,crds,embedded,operator,api}/src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        // The console's component and logic tests, in a simulated DOM.
        plugins: [react()],
        test: {
          name: 'console',
          include: ['console/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['console/src/test-setup.ts'],
        },
      },
      {
        test: {
          name: 'kube',
          include: ['tests/kube-contract/**/*.test.ts', 'tests/kubectl/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/support/kube-global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // kube-lite + the operator + the local runner in-process; one file at a time
        // because each starts processes of its own.
        test: {
          name: 'runs',
          include: [
            'tests/runs/**/*.test.ts',
            'tests/images/**/*.test.ts',
            'tests/sandbox-builder/**/*.test.ts',
          ],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        // Issue 19: schema-driven fuzzing of every route of api/openapi.yaml, against the API
        // in-process over a real kube-lite (each file builds its own two organizations).
        test: {
          name: 'hostile',
          include: ['tests/fuzz/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // Issue 19: tenant isolation probes generated from api/openapi.yaml (tests/isolation), as
        // each role of one organization against the other's ids, names and e-mails.
        test: {
          name: 'isolation',
          include: ['tests/isolation/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        // Issue 19 §3 faults: kill -9 of the platform process, kube-lite and PostgreSQL restarted, a
        // full data folder, a clock jump (tests/faults); each file starts processes of its own.
        test: {
          name: 'faults',
          include: ['tests/faults/**/*.test.ts'],
          environment: 'node',
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        // Cluster-mode artifacts: charts/sandflow through helm (built by hack/envtest/build.sh, cached
        // in .cache/envtest/bin), config/ through kubectl kustomize, hack/image against a local registry.
        test: {
          name: 'chart',
          include: ['tests/chart/**/*.test.ts', 'hack/image/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/chart/global-setup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        // The chart's RBAC on hack/envtest's real kube-apiserver (`npm run test:envtest` runs it with
        // SANDFLOW_KUBE_TARGET=external; elsewhere it is skipped and says so).
        test: {
          name: 'chart-envtest',
          include: ['tests/chart/**/*.envtest.ts'],
          environment: 'node',
          globalSetup: ['tests/chart/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Issue 18: the daemonless image built by hack/image/build.ts onto a Debian Node base and
        // started as a kube-lite Pod (tests/image); the first build takes minutes, then it is cached.
        test: {
          name: 'image',
          include: ['tests/image/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/start/**/*.test.ts', 'tests/console/**/*.test.ts'],
          environment: 'node',
          // Each file starts a whole platform (and the console suite a browser): one at a time.
          fileParallelism: false,
          testTimeout: 180_000,
        },
      },
    ],
  },
});
