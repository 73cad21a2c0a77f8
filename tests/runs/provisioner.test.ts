// The automatic provisioner in admission (issue 16): a run over its group's quota waits QUEUED while
// the organization's provisioner is off (no sandflow.io/provisioner annotation on its namespace, as
// the API leaves it when the provisioner is not enabled, not turned on, or disabled for all), and
// is admitted, borrowing the part above the quota, once the organization may borrow that much.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chain, createRun, startEnv, until, type Env } from '@sandflow/embedded/testing';

const ORG_NS = 'sf-org';
const PROVISIONER = 'sandflow.io/provisioner';

let env: Env;
let core: CoreV1Api;

/** Sets (or, with null, removes) the organization namespace's provisioner annotation. */
async function lend(amount: { cpu: number; memory: number; disk: number } | null) {
  await core.patchNamespace(
    {
      name: ORG_NS,
      body: { metadata: { annotations: { [PROVISIONER]: amount ? JSON.stringify(amount) : null } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

const phaseOf = async (ns: string, name: string) => (await env.getRun(ns, name)).status?.phase;
const admittedMessage = async (ns: string, name: string) =>
  (await env.getRun(ns, name)).status?.conditions?.find((c) => c.type === 'Admitted')?.message ?? '';

beforeAll(async () => {
  env = await startEnv();
  core = env.kc.makeApiClient(CoreV1Api);
  // The organization namespace of the groups chain() makes (organization 'org').
  await core.createNamespace({
    body: { metadata: { name: ORG_NS, labels: { 'sandflow.io/organization': 'org' } } },
  });
});
afterAll(async () => env?.close());

describe('the automatic provisioner in admission', () => {
  it('queues a run over its group quota while off, admits it borrowing once on, queues again when off', async () => {
    // Each run holds 300m; the group's quota is 200m.
    await chain(env, 'prov', { a: 'true' }, { cpu: 300, quotaCpu: '200m' });

    await createRun(env, 'prov', 'r1');
    await until(async () => (await phaseOf('prov', 'r1')) === 'QUEUED' || undefined);
    const queued = await env.getRun('prov', 'r1');
    expect(queued.status?.message).toMatch(/^cpu quota exhausted: 0 in use \+ 300 requested > 200$/);

    // Too little to lend: the run keeps waiting, and says why.
    await lend({ cpu: 50, memory: 0, disk: 0 });
    await until(
      async () =>
        /automatic provisioner lends at most 50m cpu/.test(
          (await env.getRun('prov', 'r1')).status?.message ?? '',
        ) || undefined,
    );
    expect(await phaseOf('prov', 'r1')).toBe('QUEUED');

    await lend({ cpu: 500, memory: 0, disk: 0 });
    await until(async () => (await phaseOf('prov', 'r1')) === 'COMPLETED' || undefined, 60_000);
    expect(await admittedMessage('prov', 'r1')).toMatch(
      /^assigned to platform, borrowing 100m cpu, 0 MB memory, 0 MB disk above the group quota from the automatic provisioner$/,
    );

    // Off again (the super admin disabled provisioning for all: the API removes the annotation).
    await lend(null);
    await createRun(env, 'prov', 'r2');
    await until(async () => (await phaseOf('prov', 'r2')) === 'QUEUED' || undefined);
    expect((await env.getRun('prov', 'r2')).status?.message).toMatch(/^cpu quota exhausted: [^;]*$/);
  });

  it('lends no more than the allowance across the organization: the second borrower waits', async () => {
    // Two runs of 300m in a 200m group, each step sleeping so both would overlap.
    await chain(env, 'prov2', { a: 'sleep 3' }, { cpu: 300, quotaCpu: '200m' });
    await lend({ cpu: 150, memory: 0, disk: 0 });
    await createRun(env, 'prov2', 'r1');
    await until(async () => ['INIT', 'RUNNING'].includes((await phaseOf('prov2', 'r1')) ?? '') || undefined);
    await createRun(env, 'prov2', 'r2');
    // r1 borrowed 100m of 150m; r2 would need 300m more: it waits, then runs once r1 is done.
    await until(async () => (await phaseOf('prov2', 'r2')) === 'QUEUED' || undefined);
    expect((await env.getRun('prov2', 'r2')).status?.message).toMatch(
      /automatic provisioner lends at most 150m cpu.*\(100m cpu, 0 MB memory, 0 MB disk already lent\)/,
    );
    await until(async () => (await phaseOf('prov2', 'r2')) === 'COMPLETED' || undefined, 60_000);
    expect(await phaseOf('prov2', 'r1')).toBe('COMPLETED');
    await lend(null);
  });
});
