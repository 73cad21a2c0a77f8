// The operator and the API as the chart's ServiceAccounts on a real kube-apiserver (hack/envtest:
// `npm run test:envtest` runs this project with SANDFLOW_KUBE_TARGET=external and KUBECONFIG naming
// its admin). The chart's ServiceAccounts and RBAC are applied, with its admission policies (the
// API's Pods and namespace writes and the operator's ServiceAccounts and RoleBindings only in
// namespaces labelled sandflow.io/organization: all they do here must pass them), each component
// gets a bound token of its own ServiceAccount (TokenRequest, as the kubelet mounts one in the
// Pod), and then:
// - the operator runs as its cluster-mode entrypoint (embedded/src/cluster/operator.ts, with the
//   environment of the chart's Deployment) and holds the leader Lease in the release namespace;
// - the API (createApp over PGlite) creates the organization's and group's namespaces and quotas;
// - config/samples (applied by the admin, as a person would) reconcile: Workflow Valid, Session
//   Ready, a Run whose Argo Workflow the real server accepts under Argo's full CRDs, and a
//   CronWorkflow for the periodic session; the local runner plays Argo's controller (with the
//   admin's credentials: Argo has its own ServiceAccount) so the Run completes;
// - the API serves the sandboxes, workflow, sessions and run it reads from the server;
// - Argo's workflow Pods run as the ServiceAccount sandflow-workflow, which the operator made in the
//   group namespace and bound to the chart's executor ClusterRole: it may write WorkflowTaskResults
//   there (what Argo's executor reports outputs with) and nothing else;
// - the operator met no "forbidden" on the way and the API did all it was asked (the ClusterRoles
//   are sufficient), and requests outside the roles are refused by RBAC (they are minimal).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  RbacAuthorizationV1Api,
  type V1Container,
} from '@kubernetes/client-node';
import type { Run } from '@sandflow/crds';
import { ensureSuperAdmin } from '@sandflow/api';
import { createHarness, type Harness } from '@sandflow/api/testing';
import { startRunner, type Runner } from '@sandflow/embedded/runner';
import pino from 'pino';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const external = process.env.SANDFLOW_KUBE_TARGET === 'external' && !!process.env.KUBECONFIG;
const helm = inject('helm');
const NS = 'sandflow-proof';
const RELEASE = 'proof'; // ClusterRoles proof-sandflow-*: apart from rbac.envtest.ts's sandflow-*
const OPERATOR_SA = `${RELEASE}-sandflow-operator`;
const API_SA = `${RELEASE}-sandflow-api`;
const POD_NAME = `${RELEASE}-sandflow-operator-7d9f8-abcde`;
const EXECUTOR_ROLE = `${RELEASE}-sandflow-workflow-executor`;
const EXECUTOR_SA = 'sandflow-workflow';
const POLICIES = ['api-pods', 'api-namespaces', 'operator-executor'].map((p) => `${RELEASE}-sandflow-${p}`);
const ORG_NS = 'sf-demo';
const GROUP_NS = 'sf-demo-research';
const ONE_OFF = '9a7c5e1d-3b2f-4d8a-b6e4-1c0f2a3d4e22';
const PERIODIC = '9a7c5e1d-3b2f-4d8a-b6e4-1c0f2a3d4e21';
const WORKFLOW = '0b9e4d3c-7a21-4f0e-8c6b-2e5d1a9f3b10';
const SANDBOXES = [
  '6f1c2a0e-1b7d-4c55-9a3e-0d8b7f2c1a01',
  '6f1c2a0e-1b7d-4c55-9a3e-0d8b7f2c1a02',
  '6f1c2a0e-1b7d-4c55-9a3e-0d8b7f2c1a03',
];
// Argo's own full CRDs, as a cluster with Argo has them: the two the repository vendors for
// kube-lite, and WorkflowTaskResult (argo-crds/README.md), which the executor's account writes.
const ARGO_CRDS = [path.join(root, 'embedded/argo-crds'), path.join(root, 'tests/chart/argo-crds')];

if (!external)
  console.warn(
    'chart-envtest SKIPPED: needs a real kube-apiserver with RBAC — run `npm run test:envtest` (hack/envtest/run.ts)',
  );

function kubectl(args: string[], input?: string) {
  const r = spawnSync('kubectl', args, { encoding: 'utf8', timeout: 60_000, ...(input ? { input } : {}) });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function mustKubectl(args: string[], input?: string): string {
  const r = kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.err}`);
  return r.out;
}

async function until<T>(what: () => string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { template?: { spec?: { containers?: V1Container[] } } };
}

/** A KubeConfig for the admin's server that authenticates as ServiceAccount `sa` with a bound token. */
function tokenConfig(admin: KubeConfig, sa: string, namespace = NS): KubeConfig {
  const token = mustKubectl(['create', 'token', sa, '-n', namespace, '--duration=1h']).trim();
  const cluster = admin.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: sa, token }],
    contexts: [{ name: sa, cluster: cluster.name, user: sa, namespace }],
    currentContext: sa,
  });
  return kc;
}

/** A kube API call's HTTP status: 200 when it succeeds, the error's code otherwise. */
async function statusOf(call: () => Promise<unknown>): Promise<number> {
  try {
    await call();
    return 200;
  } catch (e) {
    return (e as { code?: number }).code ?? -1;
  }
}

describe.skipIf(!external || !helm)(
  'the operator and the API as the chart’s ServiceAccounts on a real kube-apiserver',
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-sa-'));
    const admin = new KubeConfig();
    let operatorKc: KubeConfig;
    let apiKc: KubeConfig;
    let operator: ChildProcess | undefined;
    let operatorOutput = '';
    let operatorExited: Promise<number | null> = Promise.resolve(null);
    let runner: Runner | undefined;
    let h: Harness | undefined;
    let adminId = '';
    let orgToken = '';
    let leaseName = '';
    let runName = '';
    let argoName = '';

    const custom = () => admin.makeApiClient(CustomObjectsApi);
    const api = (method: 'get' | 'post', url: string, token: string, body?: object) => {
      const req = h!.request[method](`/api/v0${url}`).set('Authorization', `Bearer ${token}`);
      return body ? req.send(body) : req;
    };

    beforeAll(async () => {
      admin.loadFromDefault();
      const rendered = spawnSync(
        helm,
        [
          'template',
          RELEASE,
          path.join(root, 'charts/sandflow'),
          '--namespace',
          NS,
          '--kube-version',
          '1.33.0',
          '-f',
          path.join(root, 'charts/sandflow/ci/default-values.yaml'),
        ],
        { encoding: 'utf8' },
      );
      expect(rendered.status, rendered.stderr).toBe(0);
      const manifests = parseAllDocuments(rendered.stdout)
        .map((d) => d.toJS() as Manifest | null)
        .filter((m): m is Manifest => !!m);
      const rbacKinds = [
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'Role',
        'RoleBinding',
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ];
      const rbac = manifests.filter((m) => rbacKinds.includes(m.kind));
      expect(rbac.map((m) => m.metadata.name)).toEqual(
        expect.arrayContaining([
          OPERATOR_SA,
          API_SA,
          `${RELEASE}-sandflow-leader-election`,
          EXECUTOR_ROLE,
          ...POLICIES,
        ]),
      );

      // Our CRDs as the chart ships them, and Argo's full ones, as a cluster with Argo has them.
      for (const crds of [path.join(root, 'charts/sandflow/crds'), ...ARGO_CRDS]) {
        const names = mustKubectl([
          'apply',
          '--server-side',
          '--field-manager=sandflow-envtest',
          '-o',
          'name',
          '-f',
          crds,
        ])
          .trim()
          .split('\n');
        mustKubectl(['wait', '--for=condition=Established', '--timeout=60s', ...names]);
      }
      mustKubectl(['create', 'namespace', NS]);
      mustKubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rbac }));
      operatorKc = tokenConfig(admin, OPERATOR_SA);
      apiKc = tokenConfig(admin, API_SA);

      // The operator: its cluster-mode entrypoint with the literal environment of the chart's
      // Deployment, POD_NAMESPACE/POD_NAME as the downward API gives them, and the token's kubeconfig.
      const deployment = manifests.find(
        (m) => m.kind === 'Deployment' && m.metadata.name === `${RELEASE}-sandflow-operator`,
      )!;
      const container = deployment.spec!.template!.spec!.containers![0]!;
      expect(container.command).toEqual(['node', '--import', 'tsx', 'embedded/src/cluster/operator.ts']);
      const chartEnv = Object.fromEntries(
        (container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]),
      );
      leaseName = chartEnv.SANDFLOW_LEASE_NAME!;
      const kubeconfig = path.join(dir, 'operator.kubeconfig');
      fs.writeFileSync(kubeconfig, operatorKc.exportConfig(), { mode: 0o600 });
      const base = { ...process.env };
      for (const key of Object.keys(base))
        if (key.startsWith('SANDFLOW_') || key === 'DATABASE_URL' || key === 'KUBECONFIG') delete base[key];
      operator = spawn(container.command![0]!, container.command!.slice(1), {
        cwd: root,
        env: { ...base, ...chartEnv, POD_NAMESPACE: NS, POD_NAME, KUBECONFIG: kubeconfig },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      operator.stdout!.on('data', (d: Buffer) => (operatorOutput += d.toString()));
      operator.stderr!.on('data', (d: Buffer) => (operatorOutput += d.toString()));
      const child = operator;
      operatorExited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));

      // Argo's controller: the local runner, with the admin's credentials.
      runner = await startRunner({
        kc: admin,
        dataDir: dir,
        logger: pino({ level: 'silent' }),
        capacity: { cpu: 4000, memory: 8192 },
        gracePeriodSeconds: 1,
        argoServer: false,
      });

      // The API over PGlite, as its ServiceAccount.
      // The first start's super admin, as the API Deployment makes it (SANDFLOW_ADMIN_EMAIL).
      h = await createHarness({
        kube: apiKc,
        config: { admin: { email: 'admin@example.com', password: 'Cluster-proof-1' } },
      });
      await ensureSuperAdmin(h.deps, () => undefined);
      adminId = ((await h.db('users').where({ email: 'admin@example.com' }).first('id')) as { id: string })
        .id;
    }, 180_000);

    afterAll(async () => {
      if (operator && operator.exitCode === null) {
        operator.kill('SIGTERM');
        const timer = setTimeout(() => operator!.kill('SIGKILL'), 10_000);
        await operatorExited;
        clearTimeout(timer);
      }
      await runner?.stop().catch(() => undefined);
      await h?.close().catch(() => undefined);
      if (external) {
        kubectl(['delete', 'namespace', NS, ORG_NS, GROUP_NS, '--wait=false', '--ignore-not-found']);
        kubectl([
          'delete',
          'clusterrole,clusterrolebinding',
          `${RELEASE}-sandflow-operator`,
          `${RELEASE}-sandflow-api`,
          '--ignore-not-found',
        ]);
        kubectl(['delete', 'clusterrole', EXECUTOR_ROLE, '--ignore-not-found']);
        kubectl([
          'delete',
          'validatingadmissionpolicy,validatingadmissionpolicybinding',
          ...POLICIES,
          '--ignore-not-found',
        ]);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('the operator holds the leader Lease in the release namespace under its Pod name', async () => {
      const leases = admin.makeApiClient(CoordinationV1Api);
      const lease = await until(
        () => `the Lease ${NS}/${leaseName}\n${operatorOutput}`,
        async () => {
          const l = await leases.readNamespacedLease({ name: leaseName, namespace: NS });
          return l.spec?.holderIdentity === POD_NAME ? l : undefined;
        },
        60_000,
      );
      expect(lease.spec?.leaseDurationSeconds).toBeGreaterThan(0);
      expect(operator!.exitCode).toBeNull();
    }, 90_000);

    it('the API creates the organization’s and the group’s namespaces and ResourceQuota', async () => {
      // As much as the platform cluster (the operator's ClusterManager: this machine) has free.
      const superToken = await h!.tokenFor(adminId);
      const capacity = await until(
        () => 'the free capacity of the platform ClusterManager',
        async () => {
          const res = await api('get', '/organizations/capacity', superToken);
          const free = (
            res.body as { result?: { free: { cpu: number; memory: number; disk: number } | null } }
          ).result?.free;
          return free && free.cpu > 0 ? free : undefined;
        },
        30_000,
      );
      const quota = { cpu: capacity.cpu, memory: capacity.memory, disk: capacity.disk };
      const created = await api('post', '/organizations', superToken, { name: 'demo', quota });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const orgId = (created.body as { result: { id: string } }).result.id;
      orgToken = await h!.tokenFor(adminId, orgId);
      const group = await api('post', '/group', orgToken, { name: 'research', quota });
      expect(group.status, JSON.stringify(group.body)).toBe(201);
      const core = admin.makeApiClient(CoreV1Api);
      const namespaces = await until(
        () => 'the namespaces sf-demo and sf-demo-research',
        async () => {
          const found = await Promise.all(
            [ORG_NS, GROUP_NS].map((name) => core.readNamespace({ name }).catch(() => undefined)),
          );
          return found.every(Boolean) ? found : undefined;
        },
        30_000,
      );
      expect(namespaces.map((n) => n!.metadata?.labels?.['sandflow.io/organization'])).toEqual([
        orgId,
        orgId,
      ]);
      const quotas = await core.listNamespacedResourceQuota({ namespace: GROUP_NS });
      // The server normalizes quantities (2000m is stored as 2).
      const millicores = (q = '') => (q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
      expect(quotas.items.map((q) => millicores(q.spec?.hard?.['requests.cpu']))).toEqual([quota.cpu]);
    }, 60_000);

    it('config/samples reconcile: Workflow Valid, Session Ready, Argo objects accepted, a Run completes', async () => {
      mustKubectl(['apply', '-f', path.join(root, 'config/samples/')]);
      const get = (namespace: string, plural: string, name: string, group = 'sandflow.io') =>
        custom().getNamespacedCustomObject({
          group,
          version: 'v1alpha1',
          namespace,
          plural,
          name,
        }) as Promise<{
          status?: { conditions?: { type: string; status: string }[]; valid?: boolean };
        }>;
      const condition = (o: { status?: { conditions?: { type: string; status: string }[] } }, type: string) =>
        o.status?.conditions?.find((c) => c.type === type)?.status;

      const workflow = await until(
        () => `Workflow ${WORKFLOW} Valid\n${operatorOutput}`,
        async () => {
          // Applied together, the Workflow may be judged before its Sandboxes are seen: wait for
          // the verdict the samples deserve, not the first one.
          const w = await get(ORG_NS, 'workflows', WORKFLOW);
          return condition(w, 'Valid') === 'True' ? w : undefined;
        },
        60_000,
      );
      expect(condition(workflow, 'Valid'), JSON.stringify(workflow.status)).toBe('True');
      for (const session of [ONE_OFF, PERIODIC]) {
        const s = await until(
          () => `Session ${session} Ready\n${operatorOutput}`,
          async () => {
            // `kubectl apply -f` creates sessions.yaml before workflows.yaml: a Session is first
            // Invalid (WorkflowNotFound) until the Workflow's arrival requeues it.
            const o = await get(GROUP_NS, 'sessions', session);
            return condition(o, 'Ready') === 'True' ? o : undefined;
          },
          60_000,
        );
        expect(condition(s, 'Ready'), JSON.stringify(s.status)).toBe('True');
      }

      // The periodic session is an Argo CronWorkflow, stored by the real server under Argo's schema.
      const crons = (await custom().listNamespacedCustomObject({
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'cronworkflows',
        namespace: GROUP_NS,
      })) as { items: { metadata: { labels?: Record<string, string> } }[] };
      expect(crons.items.map((c) => c.metadata.labels?.['sandflow.io/session'])).toEqual([PERIODIC]);

      // The one-off session's Run, its Argo Workflow (created by the operator's ServiceAccount) and,
      // with the runner playing Argo's controller, its completion.
      const run = await until(
        () => `the one-off session's Run to finish\n${operatorOutput.slice(-4000)}`,
        async () => {
          const runs = (await custom().listNamespacedCustomObject({
            group: 'sandflow.io',
            version: 'v1alpha1',
            plural: 'runs',
            namespace: GROUP_NS,
          })) as { items: Run[] };
          const r = runs.items.find((x) => x.spec.session === ONE_OFF);
          return r && ['COMPLETED', 'ERROR', 'STOPPED'].includes(r.status?.phase ?? '') ? r : undefined;
        },
        120_000,
      );
      expect(run.status!.phase, JSON.stringify(run.status, null, 1)).toBe('COMPLETED');
      runName = run.metadata.name!;
      argoName = run.status!.argoWorkflow!;
      const argo = (await custom().getNamespacedCustomObject({
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'workflows',
        namespace: GROUP_NS,
        name: run.status!.argoWorkflow!,
      })) as {
        metadata: { ownerReferences: { kind: string; uid: string }[] };
        status: { phase: string };
      };
      expect(argo.metadata.ownerReferences[0]).toMatchObject({ kind: 'Run', uid: run.metadata.uid });
      expect(argo.status.phase).toBe('Succeeded');
    }, 240_000);

    it('Argo runs the workflows as sandflow-workflow, which the operator made and bound in the group namespace', async () => {
      const core = admin.makeApiClient(CoreV1Api);
      const sa = await core.readNamespacedServiceAccount({ name: EXECUTOR_SA, namespace: GROUP_NS });
      expect(sa.metadata?.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'sandflow-operator' });
      const binding = await admin
        .makeApiClient(RbacAuthorizationV1Api)
        .readNamespacedRoleBinding({ name: EXECUTOR_ROLE, namespace: GROUP_NS });
      expect(binding.metadata?.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'sandflow-operator' });
      expect(binding.roleRef).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: EXECUTOR_ROLE,
      });
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: EXECUTOR_SA, namespace: GROUP_NS }]);
      // Nothing in the organization's namespace, where no workflow runs.
      expect(
        await statusOf(() => core.readNamespacedServiceAccount({ name: EXECUTOR_SA, namespace: ORG_NS })),
      ).toBe(404);

      const argo = (await custom().getNamespacedCustomObject({
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'workflows',
        namespace: GROUP_NS,
        name: argoName,
      })) as { spec: { serviceAccountName?: string } };
      expect(argo.spec.serviceAccountName).toBe(EXECUTOR_SA);
      const crons = (await custom().listNamespacedCustomObject({
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'cronworkflows',
        namespace: GROUP_NS,
      })) as { items: { spec: { workflowSpec: { serviceAccountName?: string } } }[] };
      expect(crons.items.map((c) => c.spec.workflowSpec.serviceAccountName)).toEqual([EXECUTOR_SA]);
    });

    // As Argo's executor in a workflow Pod: the server's authorizer, asked through impersonation
    // (`kubectl auth can-i --as`, a SubjectAccessReview), grants sandflow-workflow exactly the
    // executor's role, only in the group namespace; the namespace's default ServiceAccount gets nothing.
    it.each([
      {
        as: EXECUTOR_SA,
        verb: 'create',
        resource: 'workflowtaskresults.argoproj.io',
        ns: GROUP_NS,
        allowed: 'yes',
      },
      {
        as: EXECUTOR_SA,
        verb: 'patch',
        resource: 'workflowtaskresults.argoproj.io',
        ns: GROUP_NS,
        allowed: 'yes',
      },
      {
        as: EXECUTOR_SA,
        verb: 'delete',
        resource: 'workflowtaskresults.argoproj.io',
        ns: GROUP_NS,
        allowed: 'no',
      },
      { as: EXECUTOR_SA, verb: 'list', resource: 'secrets', ns: GROUP_NS, allowed: 'no' },
      { as: EXECUTOR_SA, verb: 'get', resource: 'secrets', ns: GROUP_NS, allowed: 'no' },
      { as: EXECUTOR_SA, verb: 'create', resource: 'pods', ns: GROUP_NS, allowed: 'no' },
      { as: EXECUTOR_SA, verb: 'patch', resource: 'workflows.argoproj.io', ns: GROUP_NS, allowed: 'no' },
      {
        as: EXECUTOR_SA,
        verb: 'create',
        resource: 'workflowtaskresults.argoproj.io',
        ns: ORG_NS,
        allowed: 'no',
      },
      {
        as: 'default',
        verb: 'create',
        resource: 'workflowtaskresults.argoproj.io',
        ns: GROUP_NS,
        allowed: 'no',
      },
    ])(
      '$as of the group namespace may $verb $resource in $ns: $allowed',
      ({ as, verb, resource, ns, allowed }) => {
        const r = kubectl([
          'auth',
          'can-i',
          verb,
          resource,
          '-n',
          ns,
          `--as=system:serviceaccount:${GROUP_NS}:${as}`,
        ]);
        expect(r.out.trim(), r.err).toBe(allowed);
      },
    );

    it('with its own bound token, sandflow-workflow writes a WorkflowTaskResult and is refused Secrets', async () => {
      const kc = tokenConfig(admin, EXECUTOR_SA, GROUP_NS);
      const result = {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'WorkflowTaskResult',
        metadata: { name: `${argoName}-proof`, labels: { 'workflows.argoproj.io/workflow': argoName } },
        outputs: { parameters: [{ name: 'proof', value: 'written by the executor' }] },
      };
      const custom = kc.makeApiClient(CustomObjectsApi);
      const ref = {
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'workflowtaskresults',
        namespace: GROUP_NS,
      };
      expect(await statusOf(() => custom.createNamespacedCustomObject({ ...ref, body: result }))).toBe(200);
      expect(
        await statusOf(() => custom.getNamespacedCustomObject({ ...ref, name: result.metadata.name })),
      ).toBe(403);
      expect(
        await statusOf(() => kc.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: GROUP_NS })),
      ).toBe(403);
    });

    it('the API serves the sandboxes, the workflow, the sessions and the run it reads from the server', async () => {
      const sandboxes = await until(
        () => 'the three sample sandboxes in GET /sandbox',
        async () => {
          const res = await api('get', '/sandbox', orgToken);
          const list = (res.body as { result?: { sandboxes: { uuid: string }[] } }).result?.sandboxes ?? [];
          return list.length === 3 ? list : undefined;
        },
        30_000,
      );
      expect(sandboxes.map((s) => s.uuid).sort()).toEqual(SANDBOXES);
      const workflow = await api('get', `/workflow/${WORKFLOW}`, orgToken);
      expect(workflow.status, JSON.stringify(workflow.body)).toBe(200);
      expect((workflow.body as { result: { name: string } }).result.name).toBe('nightly sensor pipeline');
      const sessions = await api('get', '/session', orgToken);
      expect(sessions.status, JSON.stringify(sessions.body)).toBe(200);
      expect(JSON.stringify(sessions.body)).toContain(ONE_OFF);
      expect(JSON.stringify(sessions.body)).toContain(PERIODIC);
      const runs = await api('get', `/schedule/${ONE_OFF}/run`, orgToken);
      expect(runs.status, JSON.stringify(runs.body)).toBe(200);
      expect((runs.body as { result: { uuid: string; status: string }[] }).result).toEqual([
        expect.objectContaining({ uuid: runName, status: 'COMPLETED' }),
      ]);
      const run = await api('get', `/run/${runName}`, orgToken);
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      expect(JSON.stringify(run.body)).toContain('publish');
    }, 60_000);

    // The API's needs are proven by what it did above (namespaces, quotas, the lists it serves).
    it('the operator was refused nothing it needed on the way', () => {
      expect(operator!.exitCode).toBeNull();
      expect(operatorOutput).toContain('operator started');
      expect(operatorOutput).toContain('workflow validated');
      expect(operatorOutput).not.toMatch(/forbidden|cannot (get|list|watch|create|update|patch)/i);
    });

    // Minimal: what the roles do not grant is refused by the server's RBAC, with each token.
    it.each([
      {
        who: 'api',
        what: 'list Secrets in kube-system',
        call: (kc: KubeConfig) =>
          kc.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: 'kube-system' }),
      },
      {
        who: 'api',
        what: 'create an Argo Workflow',
        call: (kc: KubeConfig) =>
          kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
            group: 'argoproj.io',
            version: 'v1alpha1',
            plural: 'workflows',
            namespace: GROUP_NS,
            body: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { generateName: 'x-' } },
          }),
      },
      {
        who: 'api',
        what: 'read the operator’s Lease',
        call: (kc: KubeConfig) =>
          kc.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: leaseName, namespace: NS }),
      },
      {
        who: 'operator',
        what: 'delete a namespace',
        call: (kc: KubeConfig) => kc.makeApiClient(CoreV1Api).deleteNamespace({ name: GROUP_NS }),
      },
      {
        who: 'operator',
        what: 'read Secrets',
        call: (kc: KubeConfig) => kc.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: NS }),
      },
      {
        who: 'operator',
        what: 'create a Pod',
        call: (kc: KubeConfig) =>
          kc.makeApiClient(CoreV1Api).createNamespacedPod({
            namespace: GROUP_NS,
            body: { metadata: { name: 'x' }, spec: { containers: [{ name: 'x', image: 'x' }] } },
          }),
      },
    ])('the $who ServiceAccount may not $what: 403', async ({ who, call }) => {
      expect(await statusOf(() => call(who === 'api' ? apiKc : operatorKc))).toBe(403);
    });
  },
);
