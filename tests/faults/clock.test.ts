// Issue 19 §3: the clock jumping across a schedule. A session's schedules become a CronWorkflow
// (operator, startingDeadlineSeconds 300) that the runner's CronController turns into Workflows.
// Argo's semantics: a schedule whose ticks were skipped by a jump of the wall clock (or by the
// controller being down) runs once — for the latest missed tick — not once per missed tick.
// Only Date is faked (advancing with real time); timers, sockets and kube-lite stay real.
import path from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { KINDS, Kube } from '@sandflow/kube';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CronController, type ArgoWorkflow, type CronWorkflow } from '@sandflow/embedded/runner';
import {
  ROOT,
  createTestDatabase,
  installCrds,
  readCrds,
  startKubeLite,
  until,
  type KubeLite,
} from '@sandflow/embedded/testing';

let kubeLite: KubeLite;
let kube: Kube;
let kc: KubeConfig;
const controllers: CronController[] = [];
const log = pino({ level: 'silent' });

beforeAll(async () => {
  kubeLite = await startKubeLite({ db: await createTestDatabase(), port: 0, host: '127.0.0.1' });
  kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'k', server: kubeLite.url, caData: Buffer.from(kubeLite.caCert).toString('base64') }],
    users: [{ name: 'u', token: kubeLite.token }],
    contexts: [{ name: 'k', cluster: 'k', user: 'u' }],
    currentContext: 'k',
  });
  await installCrds(kc, readCrds(path.join(ROOT, 'embedded/argo-crds')));
  kube = new Kube(kc);
});
afterEach(async () => {
  for (const c of controllers.splice(0)) await c.stop();
  vi.useRealTimers();
});
afterAll(async () => kubeLite?.close());

async function startController() {
  const c = new CronController(kc, log);
  controllers.push(c);
  await c.start();
  return c;
}

/** A session's CronWorkflow as the operator writes it: every minute, a 300 s starting deadline. */
async function cron(ns: string) {
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
  await kube.create<CronWorkflow>(KINDS.cronWorkflow, ns, {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'CronWorkflow',
    metadata: { name: 'nightly' },
    spec: {
      schedules: ['* * * * *'],
      timezone: 'UTC',
      startingDeadlineSeconds: 300,
      concurrencyPolicy: 'Allow',
      workflowSpec: { entrypoint: 'main', templates: [{ name: 'main', container: { image: 'x' } }] },
    },
  });
}

const scheduled = async (ns: string) =>
  (await kube.list<ArgoWorkflow>(KINDS.argoWorkflow)).items
    .filter((w) => w.metadata.namespace === ns)
    .map((w) => w.metadata.name!)
    .sort();

/** The fake wall clock: `at`, then advancing with real time. */
function clockAt(at: string) {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(new Date(at));
}

describe('the clock jumping across a schedule', () => {
  it('forward by several minutes while the controller waits for the next tick: one run, not one per tick', async () => {
    const ns = 'jump-forward';
    clockAt('2031-01-01T00:00:58.500Z');
    await cron(ns);
    await startController(); // armed for 00:01:00, 1.5 s away
    vi.setSystemTime(new Date('2031-01-01T00:04:30Z')); // ticks 00:01 … 00:04 skipped
    await until(async () => (await scheduled(ns)).length > 0 || undefined, 20_000);
    await new Promise((r) => setTimeout(r, 3000)); // anything more would have come by now
    const names = await scheduled(ns);
    expect(names).toHaveLength(1);
    const cwf = (await kube.get<CronWorkflow>(KINDS.cronWorkflow, ns, 'nightly'))!;
    // Recorded as the latest tick it stood for, so no catch-up repeats it.
    expect(cwf.status?.lastScheduledTime).toBe('2031-01-01T00:04:00.000Z');
    expect(names).toEqual([`nightly-${Date.parse('2031-01-01T00:04:00Z') / 1000}`]);
  }, 60_000);

  it('across several ticks while the controller was down: one catch-up run at start', async () => {
    const ns = 'jump-down';
    clockAt('2031-02-01T00:00:30Z');
    await cron(ns);
    await kube.patch(KINDS.cronWorkflow, ns, 'nightly', {
      status: { lastScheduledTime: '2031-02-01T00:00:00Z' },
    });
    vi.setSystemTime(new Date('2031-02-01T00:03:30Z')); // 00:01, 00:02, 00:03 missed
    await startController();
    await until(async () => (await scheduled(ns)).length > 0 || undefined, 20_000);
    await new Promise((r) => setTimeout(r, 3000));
    expect(await scheduled(ns)).toEqual([`nightly-${Date.parse('2031-02-01T00:03:00Z') / 1000}`]);
  }, 60_000);
});
