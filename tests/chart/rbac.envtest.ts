// The chart's RBAC on a real kube-apiserver (hack/envtest: `npm run test:envtest` runs this project
// with SANDFLOW_KUBE_TARGET=external and KUBECONFIG naming its admin): the chart's ServiceAccounts,
// ClusterRoles and bindings are applied; the server's own authorizer (SubjectAccessReview through
// `kubectl auth can-i --as`) allows what each component needs and refuses the rest, and a request
// with the operator ServiceAccount's own token (TokenRequest) outside its role gets 403. The sandbox
// builder's rights (builder.enabled): with the API ServiceAccount's own token a builder Pod is made,
// listed and watched across namespaces and deleted, pods/exec is opened past RBAC over both
// transports (WebSocket GET and SPDY's POST), and what was not granted is refused; with
// builder.enabled=false the same token may not make a Pod.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { AuthorizationV1Api, CoreV1Api, Exec, KubeConfig, Watch, type V1Pod } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chartObjects, kubectl, mustKubectl, openExec, statusOf, tokenConfig } from './envtest-support.js';

const root = path.resolve(import.meta.dirname, '../..');
const external = process.env.SANDFLOW_KUBE_TARGET === 'external' && !!process.env.KUBECONFIG;
const helm = inject('helm');
const NS = 'sandflow-rbac';
const OPERATOR = `system:serviceaccount:${NS}:sandflow-operator`;
const API = `system:serviceaccount:${NS}:sandflow-api`;

if (!external)
  console.warn(
    'chart-envtest SKIPPED: needs a real kube-apiserver with RBAC — run `npm run test:envtest` (hack/envtest/run.ts)',
  );

const canI = (as: string, verb: string, resource: string, namespace?: string, subresource?: string) =>
  kubectl([
    'auth',
    'can-i',
    ...(subresource ? [`--subresource=${subresource}`] : []),
    verb,
    resource,
    `--as=${as}`,
    ...(namespace ? ['-n', namespace] : ['-A']),
  ]).out.trim();

interface Check {
  as: string;
  verb: string;
  resource: string;
  namespace?: string;
  subresource?: string;
  allowed: 'yes' | 'no';
}

describe.skipIf(!external || !helm)("the chart's RBAC on a real kube-apiserver", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-rbac-'));
  let operatorKubeconfig = '';

  beforeAll(() => {
    const rendered = spawnSync(
      helm,
      [
        'template',
        'sandflow',
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
    expect(rendered.status).toBe(0);
    const rbacKinds = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
    const rbac = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJS() as { kind: string } | null)
      .filter((m): m is { kind: string } => !!m && rbacKinds.includes(m.kind));
    expect(rbac).toHaveLength(9);
    const ns = kubectl(['create', 'namespace', NS]);
    expect(ns.code, ns.err).toBe(0);
    const applied = kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rbac }),
    );
    expect(applied.code, applied.err).toBe(0);
    // The operator's own credentials: a bound token from the TokenRequest API.
    const token = kubectl(['create', 'token', 'sandflow-operator', '-n', NS, '--duration=1h']);
    expect(token.code, token.err).toBe(0);
    const admin = new KubeConfig();
    admin.loadFromDefault();
    const cluster = admin.getCurrentCluster()!;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [cluster],
      users: [{ name: 'sandflow-operator', token: token.out.trim() }],
      contexts: [{ name: 'operator', cluster: cluster.name, user: 'sandflow-operator' }],
      currentContext: 'operator',
    });
    operatorKubeconfig = path.join(dir, 'operator.kubeconfig');
    fs.writeFileSync(operatorKubeconfig, kc.exportConfig());
  }, 60_000);

  afterAll(() => {
    kubectl(['delete', 'namespace', NS, '--wait=false']);
    kubectl([
      'delete',
      'clusterrole,clusterrolebinding',
      'sandflow-operator',
      'sandflow-api',
      '--ignore-not-found',
    ]);
    kubectl(['delete', 'clusterrole', 'sandflow-workflow-executor', '--ignore-not-found']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    { as: OPERATOR, verb: 'watch', resource: 'runs.sandflow.io', allowed: 'yes' },
    { as: OPERATOR, verb: 'patch', resource: 'workflows.sandflow.io', subresource: 'status', allowed: 'yes' },
    { as: OPERATOR, verb: 'create', resource: 'workflows.argoproj.io', allowed: 'yes' },
    { as: OPERATOR, verb: 'list', resource: 'resourcequotas', allowed: 'yes' },
    { as: OPERATOR, verb: 'create', resource: 'namespaces', allowed: 'no' },
    { as: OPERATOR, verb: 'get', resource: 'secrets', allowed: 'no' },
    { as: OPERATOR, verb: 'create', resource: 'pods', allowed: 'no' },
    { as: OPERATOR, verb: 'create', resource: 'pods/exec', allowed: 'no' },
    { as: OPERATOR, verb: 'update', resource: 'leases.coordination.k8s.io', namespace: NS, allowed: 'yes' },
    {
      as: OPERATOR,
      verb: 'update',
      resource: 'leases.coordination.k8s.io',
      namespace: 'default',
      allowed: 'no',
    },
    // The executor's ServiceAccount and its RoleBinding in each namespace where workflows run: the
    // operator may bind the executor's ClusterRole and no other, and not read or delete bindings.
    {
      as: OPERATOR,
      verb: 'create',
      resource: 'serviceaccounts',
      namespace: 'sf-demo-research',
      allowed: 'yes',
    },
    {
      as: OPERATOR,
      verb: 'create',
      resource: 'serviceaccounts',
      subresource: 'token',
      namespace: 'sf-demo',
      allowed: 'no',
    },
    {
      as: OPERATOR,
      verb: 'create',
      resource: 'rolebindings.rbac.authorization.k8s.io',
      namespace: 'sf-demo-research',
      allowed: 'yes',
    },
    {
      as: OPERATOR,
      verb: 'patch',
      resource: 'rolebindings.rbac.authorization.k8s.io',
      namespace: 'sf-demo-research',
      allowed: 'yes',
    },
    {
      as: OPERATOR,
      verb: 'delete',
      resource: 'rolebindings.rbac.authorization.k8s.io',
      namespace: 'sf-demo-research',
      allowed: 'no',
    },
    { as: OPERATOR, verb: 'list', resource: 'rolebindings.rbac.authorization.k8s.io', allowed: 'no' },
    {
      as: OPERATOR,
      verb: 'bind',
      resource: 'clusterroles.rbac.authorization.k8s.io/sandflow-workflow-executor',
      allowed: 'yes',
    },
    { as: OPERATOR, verb: 'bind', resource: 'clusterroles.rbac.authorization.k8s.io/admin', allowed: 'no' },
    {
      as: OPERATOR,
      verb: 'escalate',
      resource: 'clusterroles.rbac.authorization.k8s.io/sandflow-workflow-executor',
      allowed: 'no',
    },
    {
      as: OPERATOR,
      verb: 'create',
      resource: 'clusterrolebindings.rbac.authorization.k8s.io',
      allowed: 'no',
    },
    {
      as: OPERATOR,
      verb: 'create',
      resource: 'workflowtaskresults.argoproj.io',
      namespace: 'sf-demo-research',
      allowed: 'no',
    },
    { as: API, verb: 'create', resource: 'namespaces', allowed: 'yes' },
    { as: API, verb: 'update', resource: 'resourcequotas', allowed: 'yes' },
    { as: API, verb: 'create', resource: 'secrets', allowed: 'yes' },
    { as: API, verb: 'update', resource: 'secrets/sandflow-registry', namespace: 'sf-demo', allowed: 'yes' },
    { as: API, verb: 'update', resource: 'secrets/other', namespace: 'sf-demo', allowed: 'no' },
    { as: API, verb: 'list', resource: 'secrets', allowed: 'no' },
    { as: API, verb: 'create', resource: 'workflows.argoproj.io', allowed: 'no' },
    { as: API, verb: 'patch', resource: 'runs.sandflow.io', subresource: 'status', allowed: 'no' },
    { as: API, verb: 'create', resource: 'clusterroles.rbac.authorization.k8s.io', allowed: 'no' },
  ] as Check[])(
    '$as may $verb $resource $subresource: $allowed',
    ({ as, verb, resource, namespace, subresource, allowed }) => {
      expect(canI(as, verb, resource, namespace, subresource)).toBe(allowed);
    },
  );

  // What kubeconform would check offline, by the server itself: every object of the chart (each
  // values set whose kinds this server has) passes its schemas and admission, without being stored.
  // (The chart's crds/ are crds/*.yaml, which hack/envtest installed on this server already.)
  it.each([
    'default-values.yaml',
    'ingress-values.yaml',
    'postgresql-values.yaml',
    'builder-disabled-values.yaml',
  ])('kubectl apply --dry-run=server accepts the whole chart rendered with ci/%s', (file) => {
    const rendered = spawnSync(
      helm,
      [
        'template',
        'sandflow',
        path.join(root, 'charts/sandflow'),
        '--namespace',
        NS,
        '--kube-version',
        '1.33.0',
        '-f',
        path.join(root, 'charts/sandflow/ci', file),
      ],
      { encoding: 'utf8' },
    );
    expect(rendered.status).toBe(0);
    const r = kubectl(['apply', '--dry-run=server', '-n', NS, '-f', '-'], rendered.stdout);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('deployment.apps/sandflow-api created (server dry run)');
  });

  // kubeconform (built beside helm by hack/envtest/build.sh) has no schemas offline: this server's
  // own OpenAPI v3 documents are written in its folder layout (hack/envtest/README.md), one file per
  // kind, the document with a root "$ref" to the kind's schema: <kind>-[<group>-]<version>.json.
  const kubeconform = helm ? path.join(path.dirname(helm), 'kubeconform') : '';
  const schemas = path.join(dir, 'schemas');
  const renderFor = (file: string) => {
    const r = spawnSync(
      helm,
      [
        'template',
        'sandflow',
        path.join(root, 'charts/sandflow'),
        '--namespace',
        NS,
        '--kube-version',
        '1.33.0',
        '-f',
        path.join(root, 'charts/sandflow/ci', file),
      ],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };
  function writeSchemas(rendered: string) {
    fs.mkdirSync(schemas, { recursive: true });
    const wanted = parseAllDocuments(rendered)
      .map((d) => d.toJS() as { apiVersion: string; kind: string } | null)
      .filter((m): m is { apiVersion: string; kind: string } => !!m);
    for (const apiVersion of new Set(wanted.map((m) => m.apiVersion))) {
      const kinds = new Set(wanted.filter((m) => m.apiVersion === apiVersion).map((m) => m.kind));
      const raw = spawnSync(
        'kubectl',
        ['get', '--raw', `/openapi/v3/${apiVersion.includes('/') ? 'apis' : 'api'}/${apiVersion}`],
        { encoding: 'utf8', maxBuffer: 256 << 20 },
      );
      expect(raw.status, raw.stderr).toBe(0);
      const doc = JSON.parse(raw.stdout) as {
        components: {
          schemas: Record<string, { 'x-kubernetes-group-version-kind'?: { group: string; kind: string }[] }>;
        };
      };
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
      for (const [name, schema] of Object.entries(doc.components.schemas)) {
        const gvk = schema['x-kubernetes-group-version-kind']?.find(
          (k) => k.group === group && kinds.has(k.kind),
        );
        if (!gvk || name.startsWith('io.k8s.apimachinery.')) continue;
        const suffix = `${group ? `-${group.split('.')[0]}` : ''}-${version}`;
        const target = path.join(schemas, `${gvk.kind.toLowerCase()}${suffix}.json`);
        fs.writeFileSync(target, JSON.stringify({ ...doc, $ref: `#/components/schemas/${name}` }));
      }
    }
  }
  const runKubeconform = (file: string) =>
    spawnSync(
      kubeconform,
      [
        '-strict',
        '-summary',
        '-schema-location',
        path.join(schemas, '{{ .ResourceKind }}{{ .KindSuffix }}.json'),
        file,
      ],
      { encoding: 'utf8' },
    );

  it
    .skipIf(!fs.existsSync(kubeconform))
    .each([
      'default-values.yaml',
      'ingress-values.yaml',
      'postgresql-values.yaml',
      'servicemonitor-values.yaml',
      'builder-disabled-values.yaml',
    ])("kubeconform -strict passes the chart rendered with ci/%s against this server's schemas", (file) => {
    const rendered = renderFor(file);
    writeSchemas(rendered);
    const target = path.join(dir, `render-${file}`);
    fs.writeFileSync(target, rendered);
    const count = parseAllDocuments(rendered).filter((d) => d.toJS() !== null).length;
    const r = runKubeconform(target);
    expect(r.stdout).toContain(
      `Summary: ${count} resources found in 1 file - Valid: ${count}, Invalid: 0, Errors: 0, Skipped: 0`,
    );
    expect(r.status).toBe(0);
  });

  it.skipIf(!fs.existsSync(kubeconform))(
    'kubeconform with those schemas refuses a Deployment whose replicas is not a number',
    () => {
      const rendered = renderFor('default-values.yaml');
      writeSchemas(rendered);
      const target = path.join(dir, 'render-bad-replicas.yaml');
      fs.writeFileSync(target, rendered.replace('replicas: 2', 'replicas: two'));
      const r = runKubeconform(target);
      expect(r.stdout).toContain("at '/spec/replicas': got string, want integer");
      expect(r.stdout).toContain('Invalid: 1, Errors: 0');
      expect(r.status).toBe(1);
    },
  );

  it('a request outside the role is refused with 403 for the operator token', () => {
    const r = kubectl(['--kubeconfig', operatorKubeconfig, 'get', 'secrets', '-A']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/Forbidden|forbidden/);
    expect(r.err).toContain(`User "${OPERATOR}" cannot list resource "secrets"`);
  });
});

/** The chart rendered as `release` in `namespace`: only its ServiceAccounts and RBAC. */
const chartRbac = (release: string, namespace: string, extra: string[]): object[] =>
  chartObjects(
    helm,
    release,
    namespace,
    ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
    extra,
  );

describe.skipIf(!external || !helm)(
  "the sandbox builder's rights (builder.enabled) on a real kube-apiserver",
  () => {
    // Releases of their own (ClusterRoles builder-sandflow-* and nobuilder-sandflow-*), apart from
    // the one above and serviceaccounts.envtest.ts's.
    const ON = { release: 'builder', namespace: 'sandflow-builder' };
    const OFF = { release: 'nobuilder', namespace: 'sandflow-nobuilder' };
    const apiUser = (r: typeof ON) => `system:serviceaccount:${r.namespace}:${r.release}-sandflow-api`;
    // An organization's group namespace, as the API makes them (sf-<org>-<group>).
    const GROUP_NS = 'sf-builderproof-research';
    const BUILDER_ID = '5d0c7b1e-8f3a-4c2d-9e6b-7a1f2c3d4e55';
    const POD = `sandflow-builder-${BUILDER_ID.slice(0, 8)}`;
    const SELECTOR = 'sandflow.io/builder';
    // Controls: accounts with one of the two exec verbs only, to show each is needed.
    const GET_ONLY = 'exec-get-only';
    const CREATE_ONLY = 'exec-create-only';
    const admin = new KubeConfig();
    let api: KubeConfig;
    let apiOff: KubeConfig;
    const controls: Record<string, KubeConfig> = {};
    const seen: { type: string; namespace: string; name: string }[] = [];
    let watching: AbortController | undefined;

    // A Pod as the builder makes it: the helper image's static busybox copied into an emptyDir, the
    // source image kept alive by it, the builder's labels. No kubelet runs it here.
    const builderPod = (namespace: string): V1Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: POD,
        namespace,
        labels: { 'app.kubernetes.io/managed-by': 'sandflow', [SELECTOR]: BUILDER_ID },
        annotations: { 'sandflow.io/image': 'registry.example.com/demo/python:3.12' },
      },
      spec: {
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 5,
        automountServiceAccountToken: false,
        securityContext: { runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true },
        initContainers: [
          {
            name: 'helper',
            image: 'busybox:1.36.1-musl',
            command: ['cp', '/bin/busybox', '/.sandflow/busybox'],
            volumeMounts: [{ name: 'sandflow', mountPath: '/.sandflow' }],
          },
        ],
        containers: [
          {
            name: 'builder',
            image: 'registry.example.com/demo/python:3.12',
            command: ['/.sandflow/busybox', 'sleep', 'infinity'],
            securityContext: { allowPrivilegeEscalation: false },
            volumeMounts: [{ name: 'sandflow', mountPath: '/.sandflow', readOnly: true }],
          },
        ],
        volumes: [{ name: 'sandflow', emptyDir: {} }],
      },
    });

    beforeAll(() => {
      admin.loadFromDefault();
      for (const [r, extra] of [
        [ON, []],
        [OFF, ['--set', 'builder.enabled=false']],
      ] as const) {
        mustKubectl(['create', 'namespace', r.namespace]);
        mustKubectl(
          ['apply', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'List',
            items: chartRbac(r.release, r.namespace, [...extra]),
          }),
        );
      }
      mustKubectl(['create', 'namespace', GROUP_NS]);
      for (const [sa, verb] of [
        [GET_ONLY, 'get'],
        [CREATE_ONLY, 'create'],
      ] as const) {
        mustKubectl(['create', 'serviceaccount', sa, '-n', GROUP_NS]);
        mustKubectl(['create', 'role', sa, '-n', GROUP_NS, `--verb=${verb}`, '--resource=pods/exec']);
        mustKubectl([
          'create',
          'rolebinding',
          sa,
          '-n',
          GROUP_NS,
          `--role=${sa}`,
          `--serviceaccount=${GROUP_NS}:${sa}`,
        ]);
        controls[sa] = tokenConfig(admin, sa, GROUP_NS);
      }
      api = tokenConfig(admin, `${ON.release}-sandflow-api`, ON.namespace);
      apiOff = tokenConfig(admin, `${OFF.release}-sandflow-api`, OFF.namespace);
    }, 60_000);

    afterAll(() => {
      watching?.abort();
      kubectl(['delete', 'namespace', ON.namespace, OFF.namespace, GROUP_NS, '--wait=false']);
      for (const r of [ON, OFF])
        kubectl([
          'delete',
          'clusterrole,clusterrolebinding',
          `${r.release}-sandflow-operator`,
          `${r.release}-sandflow-api`,
          '--ignore-not-found',
        ]);
      for (const r of [ON, OFF])
        kubectl(['delete', 'clusterrole', `${r.release}-sandflow-workflow-executor`, '--ignore-not-found']);
    });

    it('the API ServiceAccount creates a builder Pod in a group namespace and finds it by list and watch across namespaces', async () => {
      watching = await new Watch(api).watch(
        '/api/v1/pods',
        { labelSelector: SELECTOR },
        (type: string, pod: V1Pod) =>
          seen.push({ type, namespace: pod.metadata!.namespace!, name: pod.metadata!.name! }),
        () => undefined,
      );
      const core = api.makeApiClient(CoreV1Api);
      const created = await core.createNamespacedPod({ namespace: GROUP_NS, body: builderPod(GROUP_NS) });
      expect(created.metadata?.labels?.[SELECTOR]).toBe(BUILDER_ID);
      const listed = await core.listPodForAllNamespaces({ labelSelector: SELECTOR });
      expect(listed.items.map((p) => `${p.metadata!.namespace}/${p.metadata!.name}`)).toContain(
        `${GROUP_NS}/${POD}`,
      );
      await expect
        .poll(() => seen, { timeout: 10_000 })
        .toContainEqual({ type: 'ADDED', namespace: GROUP_NS, name: POD });
    });

    // Asked by the API's own token (SelfSubjectAccessReview), in the group namespace:
    // [verb, resource[/subresource][.group], allowed].
    it.each([
      ['create', 'pods', true],
      ['get', 'pods', true],
      ['delete', 'pods', true],
      ['create', 'pods/exec', true],
      ['get', 'pods/exec', true],
      ['update', 'pods', false],
      ['patch', 'pods', false],
      ['create', 'pods/attach', false],
      ['get', 'pods/attach', false],
      ['get', 'pods/log', false],
      ['create', 'pods/portforward', false],
      ['update', 'pods/ephemeralcontainers', false],
      ['create', 'deployments.apps', false],
      ['get', 'secrets', false],
    ] as const)('SelfSubjectAccessReview: the API may %s %s: %s', async (verb, what, allowed) => {
      const [resourceAndGroup, subresource] = what.split('/') as [string, string | undefined];
      const [resource, ...group] = resourceAndGroup.split('.');
      const review = await api.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
        body: {
          spec: {
            resourceAttributes: {
              namespace: GROUP_NS,
              verb,
              resource,
              ...(subresource ? { subresource } : {}),
              ...(group.length ? { group: group.join('.') } : {}),
            },
          },
        },
      });
      expect(review.status?.allowed ?? false).toBe(allowed);
    });

    // On 1.33 a WebSocket exec is authorized as get, SPDY's POST as create (since 1.35 the WebSocket
    // upgrade needs create as well): the API has both, and each alone fails the other transport.
    it.each([
      { who: 'the API', method: 'GET', status: 400, message: `pod ${POD} does not have a host assigned` },
      { who: 'the API', method: 'POST', status: 400, message: `pod ${POD} does not have a host assigned` },
      {
        who: GET_ONLY,
        method: 'POST',
        status: 403,
        message: `User "system:serviceaccount:${GROUP_NS}:${GET_ONLY}" cannot create resource "pods/exec"`,
      },
      {
        who: CREATE_ONLY,
        method: 'GET',
        status: 403,
        message: `User "system:serviceaccount:${GROUP_NS}:${CREATE_ONLY}" cannot get resource "pods/exec"`,
      },
    ] as const)('pods/exec by $method as $who: $status', async ({ who, method, status, message }) => {
      const r = await openExec(who === 'the API' ? api : controls[who]!, method, GROUP_NS, POD);
      expect(r.message).toContain(message);
      expect(r.status).toBe(status);
    });

    it("client-node's Exec (the builder's terminal, tar upload and Save) as the API gets past RBAC to the missing kubelet", async () => {
      const exec = new Exec(api).exec(
        GROUP_NS,
        POD,
        'builder',
        ['/.sandflow/busybox', 'sh'],
        new PassThrough(),
        new PassThrough(),
        new PassThrough(),
        true,
      );
      // 400 (no node for the Pod), not 403: the upgrade was authorized.
      await expect(exec).rejects.toThrow('Unexpected server response: 400');
    });

    it('the API ServiceAccount deletes the builder Pod and the watch sees it go', async () => {
      const core = api.makeApiClient(CoreV1Api);
      await core.deleteNamespacedPod({ name: POD, namespace: GROUP_NS, gracePeriodSeconds: 0 });
      await expect
        .poll(() => seen, { timeout: 10_000 })
        .toContainEqual({ type: 'DELETED', namespace: GROUP_NS, name: POD });
      const left = await core.listPodForAllNamespaces({ labelSelector: SELECTOR });
      expect(left.items.filter((p) => p.metadata!.name === POD)).toEqual([]);
    });

    it('builder.enabled=false: the API ServiceAccount may not create, list or exec into Pods', async () => {
      const core = apiOff.makeApiClient(CoreV1Api);
      const created = await statusOf(
        core.createNamespacedPod({ namespace: GROUP_NS, body: builderPod(GROUP_NS) }),
      );
      expect(created.code).toBe(403);
      expect(created.message).toContain(`User "${apiUser(OFF)}" cannot create resource "pods"`);
      const listed = await statusOf(core.listPodForAllNamespaces({ labelSelector: SELECTOR }));
      expect(listed.code).toBe(403);
      expect(listed.message).toContain(`User "${apiUser(OFF)}" cannot list resource "pods"`);
      const review = await apiOff.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
        body: {
          spec: {
            resourceAttributes: {
              namespace: GROUP_NS,
              verb: 'create',
              resource: 'pods',
              subresource: 'exec',
            },
          },
        },
      });
      expect(review.status?.allowed ?? false).toBe(false);
      // The rest of the API's role is there: the same account still makes namespaces.
      const ns = await apiOff.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
        body: { spec: { resourceAttributes: { verb: 'create', resource: 'namespaces' } } },
      });
      expect(ns.status?.allowed).toBe(true);
    });
  },
);
