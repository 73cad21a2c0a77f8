import { isDeepStrictEqual } from 'node:util';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { Run } from '@sandflow/crds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKube, type TestKube } from '../resources/test-kube.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';
import { servicesFor } from './index.js';
import { recordRuns } from './run-records.js';

/**
 * Run records from the API's watch of Runs, against kube-lite: the test writes Run status as the
 * operator would and reads what landed in run_records and step_records.
 */
const RUNS = { group: 'sandflow.io', version: 'v1alpha1', plural: 'runs' };

let kube: TestKube;
let h: Harness;
let w: World;
let custom: CustomObjectsApi;
let workflow: string;
let session: string;

const groupNs = () => `sf-${w.a.org.slug}-${w.a.group.slug}`;
const services = () => servicesFor(h.deps);

async function call(method: 'get' | 'post', path: string, body?: object) {
  const token = await h.tokenFor(w.a.target.id, w.a.org.id);
  const req = h.request[method](`/api/v0${path}`).set('Authorization', `Bearer ${token}`);
  return body ? req.send(body) : req;
}

async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition never held');
}

/** Starts a run of the session (POST /session/fast) and answers its name. */
async function startRun(): Promise<string> {
  const res = await call('post', '/session/fast', { uuid: session, workflow_uuid: workflow });
  expect(res.status).toBe(201);
  return res.body.result.run_uuid as string;
}

/** Writes the Run's status as the operator would, and waits until the API's cache holds it. */
async function setStatus(name: string, status: NonNullable<Run['status']>) {
  const run = (await custom.getNamespacedCustomObject({ ...RUNS, namespace: groupNs(), name })) as Run;
  const written = (await custom.replaceNamespacedCustomObjectStatus({
    ...RUNS,
    namespace: groupNs(),
    name,
    // Unconditional (no resourceVersion): the API's watch may have annotated the Run meanwhile.
    body: {
      ...run,
      metadata: { ...run.metadata, resourceVersion: undefined },
      status: { ...run.status, ...status },
    },
  })) as Run;
  // The status, not the resourceVersion: the API's watch marks an ended Run notified (another write).
  await until(() =>
    isDeepStrictEqual(services().resources!.runs.get(groupNs(), name)?.status, written.status),
  );
}

/** Ended at `stop`, its two steps in the half hours before (first 10:00–10:30, second 10:30–11:15). */
const ended = (phase: 'COMPLETED' | 'ERROR', day = '2026-11-01') => ({
  phase,
  startTime: `${day}T10:00:00Z`,
  stopTime: `${day}T11:15:00Z`,
  sandboxStatuses: [
    {
      id: 'n1',
      name: 'first',
      status: 'COMPLETED' as const,
      startTime: `${day}T10:00:00Z`,
      stopTime: `${day}T10:30:00Z`,
    },
    { id: 'n2', name: 'second', status: phase, startTime: `${day}T10:30:00Z`, stopTime: `${day}T11:15:00Z` },
  ],
});

async function recordsOf(name: string) {
  const runs = await h
    .db('run_records')
    .where({ run_name: name })
    .select('status', 'stopped_at', 'organization_id', 'group_id', 'user_id', 'session_name');
  const steps = await h
    .db('step_records')
    .where({ run_name: name })
    .orderBy('started_at')
    .select(
      'sandbox_name',
      'cpu',
      'memory',
      'disk',
      'machine_cpu',
      'machine_memory',
      h.db.raw('amount_nano::text AS amount_nano'),
      h.db.raw('duration_ns::text AS duration_ns'),
    );
  return { runs, steps };
}

beforeAll(async () => {
  kube = await startTestKube();
  h = await createHarness({ kube: kube.kubeConfig });
  w = await createWorld(h.db);
  await services().kube.syncOrganization(w.a.org);
  await services().kube.syncGroup(w.a.org, { ...w.a.group, quota: { cpu: 1000, memory: 1024, disk: 1024 } });
  await services().resources!.synced;
  custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  const box = await call('post', '/sandbox', {
    name: 'box',
    entrypoint: '/run.sh',
    permissions: { _public: { read: true, execute: true } },
  });
  expect(box.status).toBe(201);
  const wf = await call('post', '/workflow', {
    name: 'pipeline',
    nodes: [
      { id: 'n1', name: 'first', src_id: box.body.result.uuid },
      { id: 'n2', name: 'second', src_id: box.body.result.uuid },
    ],
    edges: [{ id: 'e1', from: 'n1', to: 'n2', type: 'single' }],
    visibility: { type: 'public' },
  });
  expect(wf.status).toBe(201);
  workflow = wf.body.result.uuid as string;
  const saved = await call('post', '/session', {
    name: 'nightly',
    workflow_uuid: workflow,
    group: w.a.group.id,
    schedules: [],
    attempts: 1,
    sandbox_resources: { second: { cpu: 400, memory: 300, disk: 50 } },
  });
  expect(saved.status).toBe(201);
  session = saved.body.result.uuid as string;
}, 60_000);

afterAll(async () => {
  await h?.close();
  await kube?.close();
});

// Both steps fit the smallest machine (2000 m / 2048 MB, 0.0192 $/h × 1.5 = 0.0288 $/h):
// 30 min → 0.0144 $, 45 min → 0.0216 $.
const STEPS = [
  {
    sandbox_name: 'first',
    cpu: 500, // the defaults: the session overrides only `second`
    memory: 512,
    disk: 102,
    machine_cpu: 2000,
    machine_memory: 2048,
    amount_nano: '14400000',
    duration_ns: '1800000000000',
  },
  {
    sandbox_name: 'second',
    cpu: 400,
    memory: 300,
    disk: 50,
    machine_cpu: 2000,
    machine_memory: 2048,
    amount_nano: '21600000',
    duration_ns: '2700000000000',
  },
];

describe('run records', () => {
  it(
    'records a run that ends once: its outcome and one priced row per step execution',
    { timeout: 30_000 },
    async () => {
      const name = await startRun();
      await setStatus(name, { phase: 'RUNNING', startTime: '2026-11-01T10:00:00Z' });
      await services().runRecorder!.idle();
      expect(await recordsOf(name)).toEqual({ runs: [], steps: [] }); // not ended yet

      await setStatus(name, ended('COMPLETED'));
      await services().runRecorder!.idle();
      const first = await recordsOf(name);
      expect(first.runs).toHaveLength(1);
      expect(first.runs[0]).toMatchObject({
        status: 'COMPLETED',
        organization_id: w.a.org.id,
        group_id: w.a.group.id,
        user_id: w.a.target.id,
        session_name: 'nightly',
      });
      expect(new Date(first.runs[0].stopped_at).toISOString()).toBe('2026-11-01T11:15:00.000Z');
      expect(first.steps).toEqual(STEPS);

      // Another status write of the ended run (the notified mark, a message) records nothing more…
      await setStatus(name, { ...ended('COMPLETED'), message: 'done' });
      await services().runRecorder!.idle();
      expect(await recordsOf(name)).toEqual(first);

      // …nor does a second replica, or a restart, that sees the same ended Run again.
      const replica = recordRuns({ db: h.db, resources: services().resources!, logger: h.deps.logger });
      await services().resources!.synced;
      await new Promise((resolve) => setTimeout(resolve, 50));
      await replica.idle();
      replica.stop();
      expect(await recordsOf(name)).toEqual(first);
    },
  );

  it('records a run that ended while no API watched, when the API starts', { timeout: 30_000 }, async () => {
    services().runRecorder!.stop(); // the API is "down"
    const name = await startRun();
    await setStatus(name, ended('ERROR', '2026-11-02'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await recordsOf(name)).toEqual({ runs: [], steps: [] });

    // The API comes back: once its caches have synced it records every ended Run there is.
    const restarted = recordRuns({ db: h.db, resources: services().resources!, logger: h.deps.logger });
    try {
      const records = await until(async () => {
        const r = await recordsOf(name);
        return r.steps.length === 2 && r;
      });
      expect(records.runs).toMatchObject([{ status: 'ERROR' }]);
      expect(records.steps).toEqual(STEPS);

      // A retry that runs the failed step again and ends: a new step execution, the newer outcome.
      await setStatus(name, {
        phase: 'COMPLETED',
        stopTime: '2026-11-02T13:00:00Z',
        sandboxStatuses: [
          ended('ERROR', '2026-11-02').sandboxStatuses[0]!,
          {
            id: 'n2',
            name: 'second',
            status: 'COMPLETED',
            startTime: '2026-11-02T12:00:00Z',
            stopTime: '2026-11-02T13:00:00Z',
          },
        ],
      });
      await restarted.idle();
      const retried = await recordsOf(name);
      expect(retried.runs).toMatchObject([{ status: 'COMPLETED' }]);
      expect(retried.steps.map((s) => [s.sandbox_name, s.amount_nano])).toEqual([
        ['first', '14400000'],
        ['second', '21600000'],
        ['second', '28800000'], // one hour
      ]);
    } finally {
      restarted.stop();
    }
  });
});
