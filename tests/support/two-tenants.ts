// Two organizations with one of every role and objects of every kind (sandbox, workflow,
// session, run, group, invitation, tag, contact, feedback), served by the real API in-process
// over a real kube-lite — the world the fuzzing and tenant-isolation suites attack.
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import {
  PNG_BYTES,
  createHarness,
  createTestDatabase,
  createWorld,
  destroyTestDatabase,
  lastMailTo,
  servicesFor,
  tokenInMail,
  type Harness,
  type Tenant,
  type World,
} from '@sandflow/api/testing';
import { installCrds, readCrds, startKubeLite } from '@sandflow/embedded/testing';
import { CRD_DIR } from '@sandflow/crds';
import type { Knex } from 'knex';

/** What each tenant owns besides its people and group, by kind. */
export interface TenantObjects {
  sandbox: string;
  workflow: string;
  session: string;
  run: string;
  invitation: string;
}

export interface TwoTenants {
  h: Harness;
  w: World;
  kubeConfig: KubeConfig;
  /** kube-lite's own database: the Kubernetes objects. */
  kubeDb: Knex;
  /** The bearer token of the kube-lite the API uses (for the "member never reaches it" probes). */
  kubeToken: string;
  kubeUrl: string;
  objects: Map<Tenant, TenantObjects>;
  /** A bearer header for the user in their tenant's organization. */
  auth(user: { id: string }, tenant?: Tenant): Promise<string>;
  close(): Promise<void>;
}

const SANDFLOW = { group: 'sandflow.io', version: 'v1alpha1' };

export async function startTwoTenants(): Promise<TwoTenants> {
  const kubeDb = await createTestDatabase();
  const kubeLite = await startKubeLite({ db: kubeDb, port: 0, host: '127.0.0.1' });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      { name: 'kube-lite', server: kubeLite.url, caData: Buffer.from(kubeLite.caCert).toString('base64') },
    ],
    users: [{ name: 'sandflow', token: kubeLite.token }],
    contexts: [{ name: 'kube-lite', cluster: 'kube-lite', user: 'sandflow' }],
    currentContext: 'kube-lite',
  });
  await installCrds(kubeConfig, readCrds(CRD_DIR));
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  await until(async () => {
    try {
      await custom.listCustomObjectForAllNamespaces({ ...SANDFLOW, plural: 'runs' });
      return true;
    } catch {
      return false;
    }
  });

  // Rate limits high enough that the suites reach the routes rather than the limiter.
  const h = await createHarness({
    kube: kubeConfig,
    config: { rateLimit: { windowMs: 60_000, perAccount: 1_000_000, perAddress: 1_000_000 } },
  });
  const w = await createWorld(h.db);
  const services = servicesFor(h.deps);
  for (const t of [w.a, w.b]) {
    await services.kube.syncOrganization(t.org);
    await services.kube.syncGroup(t.org, { ...t.group, quota: { cpu: 4000, memory: 4096, disk: 4096 } });
  }
  await services.resources!.synced;

  const tokens = new Map<string, string>();
  const auth = async (user: { id: string }, tenant: Tenant = w.a) => {
    const key = `${user.id}:${tenant.org.id}`;
    if (!tokens.has(key)) tokens.set(key, await h.tokenFor(user.id, tenant.org.id));
    return `Bearer ${tokens.get(key)}`;
  };
  const call = async (t: Tenant, method: 'post' | 'put', path: string, body: object) => {
    const res = await h.request[method](`/api/v0${path}`)
      .set('Authorization', await auth(t.target, t))
      .send(body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.result as Record<string, unknown>;
  };

  const objects = new Map<Tenant, TenantObjects>();
  for (const t of [w.a, w.b]) {
    const name = t === w.a ? 'alpha' : 'beta';
    const box = await call(t, 'post', '/sandbox', {
      name: `${name}_box`,
      entrypoint: '/run.sh',
      permissions: { _public: { read: true, execute: true } },
      file_avatar: { file_name: 'a.png', file_body: PNG_BYTES.toString('base64') },
    });
    const wf = await call(t, 'post', '/workflow', {
      name: `${name} pipeline`,
      nodes: [
        { id: 'n1', name: 'first', src_id: box.uuid },
        { id: 'n2', name: 'second', src_id: box.uuid },
      ],
      edges: [{ id: 'e1', from: 'n1', to: 'n2', type: 'single' }],
      visibility: { type: 'public' },
    });
    const hour = 3_600_000;
    const session = await call(t, 'post', '/session', {
      name: `${name} nightly`,
      workflow_uuid: wf.uuid,
      group: t.group.id,
      schedules: [
        {
          start: new Date(Date.now() + 24 * hour).toISOString(),
          periodic_label: 'daily',
          periodic_value: 1,
          end: new Date(Date.now() + 72 * hour).toISOString(),
        },
      ],
      notifications: [`${name}-ops@example.org`],
    });
    const run = await call(t, 'post', '/session/fast', { uuid: session.uuid, workflow_uuid: wf.uuid });
    await h.request
      .post('/api/v0/invite')
      .set('Authorization', await auth(t.orgAdmin, t))
      .send({ users: [`${name}-invitee@example.org`] });
    const invitation = tokenInMail(
      ((await lastMailTo(h.db, `${name}-invitee@example.org`)) as { text: string }).text,
    );
    await call(t, 'put', '/tags', { color: '#123456', label: `${name}-tag` });
    await call(t, 'post', '/feedback', { subject: `${name} subject`, content: `${name} feedback` });
    objects.set(t, {
      sandbox: box.uuid as string,
      workflow: wf.uuid as string,
      session: session.uuid as string,
      run: run.run_uuid as string,
      invitation,
    });
  }
  // Let the watch bring every object into the API's caches before anyone probes.
  await until(() =>
    [w.a, w.b].every((t) =>
      services.resources!.runs.get(`sf-${t.org.slug}-${t.group.slug}`, objects.get(t)!.run),
    ),
  );

  return {
    h,
    w,
    kubeConfig,
    kubeDb,
    kubeToken: kubeLite.token,
    kubeUrl: kubeLite.url,
    objects,
    auth,
    async close() {
      await h.close();
      await kubeLite.close();
      await destroyTestDatabase(kubeDb);
    },
  };
}

/** Polls (bounded: 10 s) until `check` holds. */
export async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition never held');
}

/**
 * Tables left out of the digests: the login rate limits' counters (counting a refused attempt is
 * what they are for) and the statistics sampler's per-minute rows, which its timer writes
 * whatever the requests do (a fuzz case that straddled a minute saw one appear).
 */
const NOT_WRITTEN_BY_REQUESTS = new Set(['rate_limits', 'cluster_usage']);

/**
 * A digest of every row of every table of a database, by table: equal digests mean nothing
 * was written. One query, so it is cheap enough to take around every request.
 */
export async function tableDigests(db: Knex): Promise<Record<string, string>> {
  const tables = (await db.raw(
    `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`,
  )) as { rows: { tablename: string }[] };
  const names = tables.rows
    .map((r) => r.tablename)
    .filter((t) => !t.endsWith('_lock') && !NOT_WRITTEN_BY_REQUESTS.has(t));
  const sql = names
    .map(
      (t) =>
        `SELECT '${t}' AS t, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM "${t}" x`,
    )
    .join(' UNION ALL ');
  const digests = (await db.raw(sql)) as { rows: { t: string; h: string }[] };
  return Object.fromEntries(digests.rows.map((r) => [r.t, r.h]));
}
