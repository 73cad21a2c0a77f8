// charts/sandflow through the real helm (built by hack/envtest/build.sh; see global-setup.ts):
// lint, golden renders for several values sets, the CRDs kept equal to crds/, least-privilege
// RBAC, and values that make no sense refused by values.schema.json with a message naming them.
// UPDATE_GOLDEN=1 rewrites tests/chart/golden/ after an intended change (review the diff).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, inject, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const chart = path.join(root, 'charts/sandflow');
const golden = path.join(import.meta.dirname, 'golden');
const helm = inject('helm');
// Helm built from source reports Kubernetes v1.20 by default; the chart needs >= 1.29.
const KUBE_VERSION = '1.33.0';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

function runHelm(args: string[]) {
  const r = spawnSync(helm, args, { cwd: root, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function render(valuesFile: string | undefined, extra: string[] = []) {
  return runHelm([
    'template',
    'sandflow',
    chart,
    '--namespace',
    'sandflow',
    '--kube-version',
    KUBE_VERSION,
    ...(valuesFile ? ['-f', path.join(chart, 'ci', valuesFile)] : []),
    ...extra,
  ]);
}

function manifests(yamlText: string): Manifest[] {
  return parseAllDocuments(yamlText)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

const find = (all: Manifest[], kind: string, name?: string) =>
  all.filter((m) => m.kind === kind && (name === undefined || m.metadata.name === name));

type Container = {
  name: string;
  image: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  readinessProbe?: { httpGet?: { path: string } };
  securityContext?: Record<string, unknown>;
};
type PodSpec = {
  securityContext?: Record<string, unknown>;
  containers: Container[];
  serviceAccountName?: string;
};
/** The ci values' SANDFLOW_SECRETS_KEY and, in postgresql-values.yaml, SANDFLOW_SECRETS_KEY_PREVIOUS. */
const SECRETS_KEY = 'Y2ktb25seS1zZWNyZXRzLWtleS0zMi1ieXRlcy14eXo=';
const PREVIOUS_KEY = 'Y2ktb25seS1wcmV2aW91cy1rZXktMzItYnl0ZXMteHk=';
const podSpec = (m: Manifest) => (m.spec as { template: { spec: PodSpec } }).template.spec;
const replicas = (m: Manifest) => (m.spec as { replicas: number }).replicas;

const SETS = [
  { set: 'default', file: 'default-values.yaml', extra: [] as string[] },
  { set: 'ingress', file: 'ingress-values.yaml', extra: [] },
  { set: 'postgresql', file: 'postgresql-values.yaml', extra: [] },
  {
    set: 'servicemonitor',
    file: 'servicemonitor-values.yaml',
    extra: ['--api-versions', 'monitoring.coreos.com/v1'],
  },
  { set: 'builder-disabled', file: 'builder-disabled-values.yaml', extra: [] },
];

describe.skipIf(!helm)('charts/sandflow', () => {
  it.each(SETS)('helm lint --strict passes with ci/$file', ({ file }) => {
    const r = runHelm([
      'lint',
      '--strict',
      chart,
      '--kube-version',
      KUBE_VERSION,
      '-f',
      path.join(chart, 'ci', file),
    ]);
    expect(r.stderr + r.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(r.code).toBe(0);
  });

  it.each(SETS)('helm template with ci/$file equals its golden file ($set)', ({ set, file, extra }) => {
    const r = render(file, extra);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const target = path.join(golden, `${set}.yaml`);
    if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(target, r.stdout);
    expect(r.stdout).toBe(fs.readFileSync(target, 'utf8'));
  });

  it('default: both Deployments, Secret, Service; no Ingress, bundled database or ServiceMonitor', () => {
    const all = manifests(render('default-values.yaml').stdout);
    const kinds = [...new Set(all.map((m) => m.kind))].sort();
    expect(kinds).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'Deployment',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Secret',
      'Service',
      'ServiceAccount',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    const [operator] = find(all, 'Deployment', 'sandflow-operator');
    const [api] = find(all, 'Deployment', 'sandflow-api');
    expect(replicas(operator!)).toBe(2);
    expect(replicas(api!)).toBe(2);
    expect(podSpec(operator!).containers[0]!.image).toBe('ghcr.io/sandflow/sandflow:0.1.0');
    expect(podSpec(api!).containers[0]!.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(podSpec(operator!).serviceAccountName).toBe('sandflow-operator');
    expect(podSpec(api!).serviceAccountName).toBe('sandflow-api');
    // Argo's workflow Pods run as the ServiceAccount the operator binds to the executor's role.
    const operatorEnv = podSpec(operator!).containers[0]!.env!;
    expect(operatorEnv.find((e) => e.name === 'SANDFLOW_EXECUTOR_CLUSTERROLE')?.value).toBe(
      'sandflow-workflow-executor',
    );
    expect(find(all, 'ClusterRole', 'sandflow-workflow-executor')).toHaveLength(1);
    const [secret] = find(all, 'Secret', 'sandflow-secrets');
    expect((secret as unknown as { stringData: Record<string, string> }).stringData.DATABASE_URL).toBe(
      'postgresql://sandflow:change-me@postgres.databases.svc:5432/sandflow',
    );
    // The sandbox builder is on by default, with the static busybox helper.
    const apiEnv = podSpec(api!).containers[0]!.env!;
    expect(apiEnv.filter((e) => e.name.startsWith('SANDFLOW_BUILDER_'))).toEqual([
      { name: 'SANDFLOW_BUILDER_ENABLED', value: 'true' },
      { name: 'SANDFLOW_BUILDER_HELPER_IMAGE', value: 'busybox:1.36.1-musl' },
    ]);
  });

  it('builder-disabled: the API is told (SANDFLOW_BUILDER_ENABLED=false) and gets no rights on Pods', () => {
    const all = manifests(render('builder-disabled-values.yaml').stdout);
    const env = podSpec(find(all, 'Deployment', 'sandflow-api')[0]!).containers[0]!.env!;
    expect(env.filter((e) => e.name.startsWith('SANDFLOW_BUILDER_'))).toEqual([
      { name: 'SANDFLOW_BUILDER_ENABLED', value: 'false' },
      { name: 'SANDFLOW_BUILDER_HELPER_IMAGE', value: 'registry.example.com/mirror/busybox:1.36.1-musl' },
    ]);
    const resources = [...find(all, 'ClusterRole'), ...find(all, 'Role')].flatMap((m) =>
      (m as unknown as { rules: { resources: string[] }[] }).rules.flatMap((r) => r.resources),
    );
    expect(resources.filter((r) => /^pods/.test(r))).toEqual([]);
    // Everything else is the default's: the same objects.
    const ids = (ms: Manifest[]) => ms.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    expect(ids(all)).toEqual(ids(manifests(render('default-values.yaml').stdout)));
  });

  it.each(SETS)(
    '$set: every Pod is non-root with a read-only root filesystem and resource requests',
    ({ file, extra }) => {
      const all = manifests(render(file, extra).stdout);
      const workloads = all.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet');
      expect(workloads.length).toBeGreaterThanOrEqual(2);
      for (const w of workloads) {
        const spec = podSpec(w);
        expect(spec.securityContext, w.metadata.name).toMatchObject({ runAsNonRoot: true });
        for (const c of spec.containers) {
          expect(c.securityContext, `${w.metadata.name}/${c.name}`).toMatchObject({
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
          });
          expect((c as { resources?: { requests?: object } }).resources?.requests).toBeDefined();
        }
      }
    },
  );

  it('ingress: an Ingress to the Service with TLS; cookies are secure behind https', () => {
    const all = manifests(render('ingress-values.yaml').stdout);
    const [ingress] = find(all, 'Ingress');
    expect(ingress!.spec).toMatchObject({
      ingressClassName: 'nginx',
      tls: [{ secretName: 'sandflow-tls', hosts: ['sandflow.example.com'] }],
      rules: [{ host: 'sandflow.example.com' }],
    });
    const env = podSpec(find(all, 'Deployment', 'sandflow-api')[0]!).containers[0]!.env!;
    expect(env.find((e) => e.name === 'SANDFLOW_SECURE_COOKIES')?.value).toBe('true');
  });

  it('postgresql: the bundled database, DATABASE_URL pointing at it, the registry and SMTP Secrets', () => {
    const all = manifests(render('postgresql-values.yaml').stdout);
    expect(find(all, 'StatefulSet', 'sandflow-postgresql')).toHaveLength(1);
    const secret = find(all, 'Secret', 'sandflow-secrets')[0] as unknown as {
      stringData: Record<string, string>;
    };
    expect(secret.stringData.DATABASE_URL).toBe(
      'postgresql://sandflow:ci-only-password@sandflow-postgresql:5432/sandflow',
    );
    expect(secret.stringData.SANDFLOW_SMTP_URL).toBe('smtp://mail.example.com:587');
    const registry = find(all, 'Secret', 'sandflow-default-registry')[0] as unknown as {
      type: string;
      data: Record<string, string>;
    };
    expect(registry.type).toBe('kubernetes.io/dockerconfigjson');
    const config = JSON.parse(Buffer.from(registry.data['.dockerconfigjson']!, 'base64').toString()) as {
      auths: Record<string, { auth: string }>;
    };
    expect(Buffer.from(config.auths['registry.example.com']!.auth, 'base64').toString()).toBe(
      'sandflow:ci-only-registry-password',
    );
  });

  describe('SANDFLOW_SECRETS_KEY (registry passwords encrypted at rest)', () => {
    type Env = {
      name: string;
      valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
    };
    const apiEnv = (all: Manifest[]) =>
      podSpec(find(all, 'Deployment', 'sandflow-api')[0]!).containers[0]!.env! as Env[];
    const keyRefs = (all: Manifest[]) =>
      apiEnv(all)
        .filter((e) => e.name.startsWith('SANDFLOW_SECRETS_KEY'))
        .map((e) => ({ name: e.name, ref: e.valueFrom?.secretKeyRef }));
    const stringData = (all: Manifest[]) =>
      (find(all, 'Secret', 'sandflow-secrets')[0] as unknown as { stringData: Record<string, string> })
        .stringData;
    const OPTIONAL_REFS = ['SANDFLOW_SECRETS_KEY', 'SANDFLOW_SECRETS_KEY_PREVIOUS'].map((name) => ({
      name,
      ref: { name: 'sandflow-secrets', key: name, optional: true },
    }));

    it.each([
      {
        set: 'default',
        file: 'default-values.yaml',
        extra: [] as string[],
        key: SECRETS_KEY,
        previous: undefined,
      },
      {
        set: 'postgresql',
        file: 'postgresql-values.yaml',
        extra: [],
        key: SECRETS_KEY,
        previous: PREVIOUS_KEY,
      },
    ])(
      '$set: the Secret carries the key (and the previous one during a rotation), the API reads them',
      ({ file, extra, key, previous }) => {
        const all = manifests(render(file, extra).stdout);
        expect(stringData(all).SANDFLOW_SECRETS_KEY).toBe(key);
        expect(stringData(all).SANDFLOW_SECRETS_KEY_PREVIOUS).toBe(previous);
        expect(Buffer.from(stringData(all).SANDFLOW_SECRETS_KEY!, 'base64')).toHaveLength(32);
        expect(keyRefs(all)).toEqual(OPTIONAL_REFS);
      },
    );

    it('an existing Secret: the same optional references (one made before the key still starts the API)', () => {
      const all = manifests(render('servicemonitor-values.yaml').stdout);
      expect(find(all, 'Secret')).toHaveLength(0);
      expect(keyRefs(all)).toEqual(OPTIONAL_REFS);
    });

    it('a changed key rolls the API Pods (the Secret checksum changes)', () => {
      const checksum = (args: string[]) =>
        (
          find(manifests(render('default-values.yaml', args).stdout), 'Deployment', 'sandflow-api')[0]!
            .spec as {
            template: { metadata: { annotations: Record<string, string> } };
          }
        ).template.metadata.annotations['checksum/secret'];
      expect(checksum(['--set', `secret.secretsKey=${PREVIOUS_KEY}`])).not.toBe(checksum([]));
    });
  });

  it('servicemonitor: rendered only where monitoring.coreos.com/v1 exists; an existing Secret is used', () => {
    const withCrd = manifests(render('servicemonitor-values.yaml', SETS[3]!.extra).stdout);
    const [monitor] = find(withCrd, 'ServiceMonitor');
    expect(monitor!.metadata.labels).toMatchObject({ release: 'prometheus' });
    expect(monitor!.spec).toMatchObject({ endpoints: [{ port: 'http', path: '/metrics' }] });
    expect(find(withCrd, 'Secret')).toHaveLength(0);
    // One replica each: no PodDisruptionBudget (it could only be 0 or block every drain).
    expect(find(withCrd, 'PodDisruptionBudget')).toHaveLength(0);
    const env = podSpec(find(withCrd, 'Deployment', 'sandflow-api')[0]!).containers[0]!.env!;
    expect(env.find((e) => e.name === 'DATABASE_URL')?.valueFrom).toEqual({
      secretKeyRef: { name: 'sandflow-secrets', key: 'DATABASE_URL' },
    });
    const without = manifests(render('servicemonitor-values.yaml').stdout);
    expect(find(without, 'ServiceMonitor')).toHaveLength(0);
  });

  it("the chart's crds/ are byte for byte the project's crds/*.yaml", () => {
    const ours = fs.readdirSync(path.join(root, 'crds')).filter((f) => f.endsWith('.yaml'));
    const charted = fs.readdirSync(path.join(chart, 'crds')).filter((f) => f.endsWith('.yaml'));
    expect(charted.sort()).toEqual(ours.sort());
    expect(ours.length).toBeGreaterThan(0);
    for (const f of ours)
      expect(fs.readFileSync(path.join(chart, 'crds', f), 'utf8'), f).toBe(
        fs.readFileSync(path.join(root, 'crds', f), 'utf8'),
      );
  });

  describe('RBAC is least privilege', () => {
    const all = manifests(render('default-values.yaml').stdout);
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
    const rules = (kind: string, name: string) =>
      ((find(all, kind, name)[0] as unknown as { rules: Rule[] }).rules ?? []).map((r) => ({
        ...r,
        verbs: [...r.verbs].sort(),
      }));
    const READ = ['get', 'list', 'watch'];
    const ALL = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
    const SANDFLOW = ['workflows', 'sessions', 'runs', 'sandboxes', 'clustermanagers'];
    // The operator's only RBAC rights: RoleBindings (in the namespaces where workflows run) to the
    // executor's ClusterRole, the one role it may bind.
    // The sandbox builder (builder.enabled, the default), the API's only: its Pods, created in the
    // organization's namespace, listed and watched across namespaces, deleted; and pods/exec, with
    // create (SPDY's POST, and the WebSocket upgrade since Kubernetes 1.35) and get (the WebSocket
    // upgrade is a GET). No update/patch of Pods, no attach, log or portforward.
    const BUILDER: Rule[] = [
      { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['create', 'get'] },
    ];
    const EXECUTOR_BINDING: Rule[] = [
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['rolebindings'],
        verbs: ['create', 'get', 'patch'],
      },
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles'],
        resourceNames: ['sandflow-workflow-executor'],
        verbs: ['bind'],
      },
    ];

    it.each([
      {
        role: 'sandflow-operator',
        expected: [
          { apiGroups: ['sandflow.io'], resources: SANDFLOW, verbs: ALL },
          {
            apiGroups: ['sandflow.io'],
            resources: SANDFLOW.map((r) => `${r}/status`),
            verbs: ['get', 'patch', 'update'],
          },
          { apiGroups: ['argoproj.io'], resources: ['workflows', 'cronworkflows'], verbs: ALL },
          { apiGroups: [''], resources: ['namespaces', 'resourcequotas'], verbs: READ },
          { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create', 'get', 'patch'] },
          ...EXECUTOR_BINDING,
        ],
      },
      {
        // Argo's documented minimum for its emissary executor (docs/workflow-rbac.md).
        role: 'sandflow-workflow-executor',
        expected: [
          { apiGroups: ['argoproj.io'], resources: ['workflowtaskresults'], verbs: ['create', 'patch'] },
        ],
      },
      {
        role: 'sandflow-api',
        expected: [
          { apiGroups: ['sandflow.io'], resources: SANDFLOW, verbs: ALL },
          { apiGroups: ['argoproj.io'], resources: ['workflows'], verbs: READ },
          {
            apiGroups: [''],
            resources: ['namespaces'],
            verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'],
          },
          {
            apiGroups: [''],
            resources: ['resourcequotas'],
            verbs: ['create', 'get', 'list', 'update', 'watch'],
          },
          { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
          {
            apiGroups: [''],
            resources: ['secrets'],
            resourceNames: ['sandflow-registry'],
            verbs: ['delete', 'update'],
          },
          ...BUILDER,
        ],
      },
    ])('ClusterRole $role has exactly its rules', ({ role, expected }) => {
      expect(rules('ClusterRole', role)).toEqual(expected);
    });

    it("no wildcard, no Pods but the API's builder rules, no cluster-wide Secret reads; RBAC only to bind the executor role", () => {
      const roles = [...find(all, 'ClusterRole'), ...find(all, 'Role')];
      const pods: { role: string; rule: Rule }[] = [];
      const rbac: Rule[] = [];
      for (const role of roles)
        for (const r of (role as unknown as { rules: Rule[] }).rules) {
          expect([...r.apiGroups, ...r.resources, ...r.verbs]).not.toContain('*');
          if (r.resources.some((x) => /^pods/.test(x)))
            pods.push({ role: role.metadata.name, rule: { ...r, verbs: [...r.verbs].sort() } });
          if (
            r.apiGroups.includes('rbac.authorization.k8s.io') ||
            r.resources.some((x) => /roles|bindings/.test(x))
          )
            rbac.push({ ...r, verbs: [...r.verbs].sort() });
          if (r.resources.includes('secrets'))
            expect(r.verbs.filter((v) => ['get', 'list', 'watch'].includes(v))).toEqual([]);
        }
      expect(pods).toEqual(BUILDER.map((rule) => ({ role: 'sandflow-api', rule })));
      expect(rbac).toEqual(EXECUTOR_BINDING);
    });

    it('rbac.create=false: no roles, and the operator is not told of an executor role', () => {
      const none = manifests(render('default-values.yaml', ['--set', 'rbac.create=false']).stdout);
      expect([
        ...find(none, 'ClusterRole'),
        ...find(none, 'ClusterRoleBinding'),
        ...find(none, 'Role'),
      ]).toEqual([]);
      const env = podSpec(find(none, 'Deployment', 'sandflow-operator')[0]!).containers[0]!.env!;
      expect(env.map((e) => e.name)).not.toContain('SANDFLOW_EXECUTOR_CLUSTERROLE');
    });

    it('leases only in the release namespace, for the operator', () => {
      expect(rules('Role', 'sandflow-leader-election')).toEqual([
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['create', 'get', 'list', 'patch', 'update', 'watch'],
        },
      ]);
      expect(find(all, 'Role')[0]!.metadata.namespace).toBe('sandflow');
      expect(find(all, 'RoleBinding')[0]).toMatchObject({
        subjects: [{ kind: 'ServiceAccount', name: 'sandflow-operator', namespace: 'sandflow' }],
      });
    });
  });

  describe("admission policies keep the API's and the operator's namespaced rights to Sandflow's namespaces", () => {
    type Policy = {
      failurePolicy: string;
      matchConstraints: {
        resourceRules: { apiGroups: string[]; resources: string[]; operations: string[] }[];
      };
      matchConditions: { name: string; expression: string }[];
      validations: { expression: string; messageExpression: string; reason: string }[];
    };
    const spec = (all: Manifest[], name: string) =>
      find(all, 'ValidatingAdmissionPolicy', name)[0]!.spec as Policy;
    const IN_SANDFLOW_NAMESPACE = [
      {
        expression:
          "namespaceObject != null && has(namespaceObject.metadata.labels) && 'sandflow.io/organization' in namespaceObject.metadata.labels",
        messageExpression:
          "'namespace ' + request.namespace + ' is not a Sandflow namespace (no sandflow.io/organization label)'",
        reason: 'Forbidden',
      },
    ];

    it.each([
      {
        policy: 'api-pods',
        account: 'sandflow-api',
        rules: [
          { apiGroups: [''], resources: ['pods'], operations: ['CREATE', 'DELETE'] },
          { apiGroups: [''], resources: ['pods/exec'], operations: ['CONNECT'] },
        ],
      },
      {
        policy: 'api-namespaces',
        account: 'sandflow-api',
        rules: [{ apiGroups: [''], resources: ['namespaces'], operations: ['CREATE', 'UPDATE', 'DELETE'] }],
      },
      {
        policy: 'operator-executor',
        account: 'sandflow-operator',
        rules: [
          { apiGroups: [''], resources: ['serviceaccounts'], operations: ['CREATE', 'UPDATE', 'DELETE'] },
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['rolebindings'],
            operations: ['CREATE', 'UPDATE', 'DELETE'],
          },
        ],
      },
    ])(
      'sandflow-$policy: only $account of the release namespace, on $rules.length rule(s), failing closed, bound with Deny',
      ({ policy, account, rules }) => {
        const all = manifests(render('default-values.yaml').stdout);
        const p = spec(all, `sandflow-${policy}`);
        expect(p.failurePolicy).toBe('Fail');
        expect(p.matchConstraints.resourceRules).toEqual(rules.map((r) => ({ ...r, apiVersions: ['*'] })));
        expect(p.matchConditions.map((c) => c.expression)).toEqual([
          `request.userInfo.username == 'system:serviceaccount:sandflow:${account}'`,
        ]);
        if (policy !== 'api-namespaces') expect(p.validations).toEqual(IN_SANDFLOW_NAMESPACE);
        else
          expect(p.validations.map((v) => v.expression)).toEqual([
            "request.operation == 'CREATE' || (has(oldObject.metadata.labels) && 'sandflow.io/organization' in oldObject.metadata.labels)",
            "request.operation == 'DELETE' || (has(object.metadata.labels) && 'sandflow.io/organization' in object.metadata.labels)",
          ]);
        expect(find(all, 'ValidatingAdmissionPolicyBinding', `sandflow-${policy}`)[0]!.spec).toEqual({
          policyName: `sandflow-${policy}`,
          validationActions: ['Deny'],
        });
      },
    );

    it('the accounts are named after the release and its namespace', () => {
      const r = runHelm([
        'template',
        'acme',
        chart,
        '--namespace',
        'platform',
        '--kube-version',
        KUBE_VERSION,
        '-f',
        path.join(chart, 'ci', 'default-values.yaml'),
      ]);
      expect(r.code).toBe(0);
      const all = manifests(r.stdout);
      expect(spec(all, 'acme-sandflow-api-pods').matchConditions[0]!.expression).toBe(
        "request.userInfo.username == 'system:serviceaccount:platform:acme-sandflow-api'",
      );
      expect(spec(all, 'acme-sandflow-operator-executor').matchConditions[0]!.expression).toBe(
        "request.userInfo.username == 'system:serviceaccount:platform:acme-sandflow-operator'",
      );
      // The ServiceAccounts the Deployments run as are those.
      expect(podSpec(find(all, 'Deployment', 'acme-sandflow-api')[0]!).serviceAccountName).toBe(
        'acme-sandflow-api',
      );
      expect(podSpec(find(all, 'Deployment', 'acme-sandflow-operator')[0]!).serviceAccountName).toBe(
        'acme-sandflow-operator',
      );
    });

    it('admissionPolicy.enabled=false: no policy or binding, the rest unchanged', () => {
      const off = manifests(render('default-values.yaml', ['--set', 'admissionPolicy.enabled=false']).stdout);
      expect(off.filter((m) => m.kind.startsWith('ValidatingAdmissionPolicy'))).toEqual([]);
      const ids = (ms: Manifest[]) =>
        ms
          .filter((m) => !m.kind.startsWith('ValidatingAdmissionPolicy'))
          .map((m) => `${m.kind}/${m.metadata.name}`)
          .sort();
      expect(ids(off)).toEqual(ids(manifests(render('default-values.yaml').stdout)));
    });

    it('before Kubernetes 1.30 (no admissionregistration.k8s.io/v1 policies) the chart says to turn them off', () => {
      const r = runHelm([
        'template',
        'sandflow',
        chart,
        '--kube-version',
        '1.29.4',
        '-f',
        path.join(chart, 'ci', 'default-values.yaml'),
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'admissionPolicy.enabled needs Kubernetes 1.30 or later (ValidatingAdmissionPolicy, admissionregistration.k8s.io/v1); on an older cluster set admissionPolicy.enabled=false',
      );
      const off = runHelm([
        'template',
        'sandflow',
        chart,
        '--kube-version',
        '1.29.4',
        '-f',
        path.join(chart, 'ci', 'default-values.yaml'),
        '--set',
        'admissionPolicy.enabled=false',
      ]);
      expect(off.stderr).toBe('');
      expect(off.code).toBe(0);
    });
  });

  describe('values that make no sense are refused by values.schema.json', () => {
    const OK = [
      '--set',
      'secret.jwtSecret=ci-only-jwt-secret-at-least-32-characters-long',
      '--set',
      `secret.secretsKey=${SECRETS_KEY}`,
    ];
    const DB = ['--set', 'databaseUrl=postgresql://sandflow@db/sandflow'];
    it.each([
      {
        case: 'api.replicas 0',
        args: [...OK, ...DB, '--set', 'api.replicas=0'],
        message: "at '/api/replicas': minimum: got 0, want 1",
      },
      {
        case: 'operator.replicas -1',
        args: [...OK, ...DB, '--set', 'operator.replicas=-1'],
        message: "at '/operator/replicas': minimum: got -1, want 1",
      },
      {
        case: 'no DATABASE_URL with the bundled database off',
        args: OK,
        message: "at '/databaseUrl': '' does not match pattern '^postgres(ql)?://'",
      },
      {
        case: 'DATABASE_URL not postgres',
        args: [...OK, '--set', 'databaseUrl=mysql://db/sandflow'],
        message: "at '/databaseUrl': 'mysql://db/sandflow' does not match pattern",
      },
      {
        case: 'bad registry URL',
        args: [...OK, ...DB, '--set', 'registry.url=ftp://registry.example.com'],
        message: "at '/registry/url': 'ftp://registry.example.com' does not match pattern",
      },
      {
        case: 'JWT secret too short',
        args: [...DB, '--set', 'secret.jwtSecret=short'],
        message: "at '/secret/jwtSecret': minLength: got 5, want 32",
      },
      {
        case: 'no secrets key (SANDFLOW_SECRETS_KEY) in the chart-made Secret',
        args: [...DB, '--set', 'secret.jwtSecret=ci-only-jwt-secret-at-least-32-characters-long'],
        message: "at '/secret/secretsKey': '' does not match pattern",
      },
      {
        case: 'a secrets key that is not the base64 of 32 bytes',
        args: [
          ...DB,
          '--set',
          'secret.jwtSecret=ci-only-jwt-secret-at-least-32-characters-long',
          '--set',
          `secret.secretsKey=${Buffer.alloc(16, 1).toString('base64')}`,
        ],
        message: "at '/secret/secretsKey': 'AQEBAQEBAQEBAQEBAQEBAQ==' does not match pattern",
      },
      {
        case: 'a previous secrets key that is not the base64 of 32 bytes',
        args: [...OK, ...DB, '--set', 'secret.secretsKeyPrevious=old-key'],
        message: "at '/secret/secretsKeyPrevious': 'old-key' does not match pattern",
      },
      {
        case: 'bundled database without a password',
        args: [...OK, '--set', 'postgresql.enabled=true'],
        message: "at '/postgresql/password': minLength: got 0, want 8",
      },
      {
        case: 'builder.enabled not a boolean',
        args: [...OK, ...DB, '--set', 'builder.enabled=yes'],
        message: "at '/builder/enabled': got string, want boolean",
      },
      {
        case: 'builder.enabled the string "true"',
        args: [...OK, ...DB, '--set-string', 'builder.enabled=true'],
        message: "at '/builder/enabled': got string, want boolean",
      },
      {
        case: 'builder.helperImage empty',
        args: [...OK, ...DB, '--set', 'builder.helperImage='],
        message: "at '/builder/helperImage': minLength: got 0, want 1",
      },
      {
        case: 'builder.helperImage not an image reference',
        args: [...OK, ...DB, '--set', 'builder.helperImage=https://example.com/busybox'],
        message: "at '/builder/helperImage': 'https://example.com/busybox' does not match pattern",
      },
      {
        case: 'builder.helperImage with upper case in its name',
        args: [...OK, ...DB, '--set', 'builder.helperImage=BusyBox:1.36'],
        message: "at '/builder/helperImage': 'BusyBox:1.36' does not match pattern",
      },
      {
        case: 'admissionPolicy.enabled not a boolean',
        args: [...OK, ...DB, '--set-string', 'admissionPolicy.enabled=false'],
        message: "at '/admissionPolicy/enabled': got string, want boolean",
      },
      {
        case: 'api.trustProxy not something Express reads',
        args: [...OK, ...DB, '--set', 'api.trustProxy=yes please!'],
        message: "at '/api/trustProxy': 'yes please!' does not match pattern",
      },
      {
        case: 'smtp URL not smtp',
        args: [...OK, ...DB, '--set', 'smtp.url=http://mail'],
        message: "at '/smtp/url': 'http://mail' does not match pattern '^smtps?://'",
      },
    ])('$case', ({ args, message }) => {
      const r = render(undefined, args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("values don't meet the specifications of the schema");
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe('');
    });

    it('the same values with the problem fixed render', () => {
      const r = render(undefined, [...OK, ...DB]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    });

    it.each([
      'busybox:1.36.1-musl',
      'docker.io/library/busybox:1.36.1-musl',
      'localhost:5000/mirror/busy_box:v1',
      `registry.example.com:443/busybox@sha256:${'ab'.repeat(32)}`,
    ])('builder.helperImage %s is accepted and passed to the API', (image) => {
      const r = render(undefined, [...OK, ...DB, '--set', `builder.helperImage=${image}`]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const env = podSpec(find(manifests(r.stdout), 'Deployment', 'sandflow-api')[0]!).containers[0]!.env!;
      expect(env.find((e) => e.name === 'SANDFLOW_BUILDER_HELPER_IMAGE')?.value).toBe(image);
    });

    it.each([
      ['unset: no variable, the API trusts no proxy', undefined, undefined],
      ['one hop', '1', '1'],
      ['true', 'true', 'true'],
      ['subnets', '10.0.0.0/8\\,loopback', '10.0.0.0/8,loopback'],
    ])('api.trustProxy %s', (_case, value, expected) => {
      const r = render(undefined, [...OK, ...DB, ...(value ? ['--set', `api.trustProxy=${value}`] : [])]);
      expect(r.stderr).toBe('');
      const env = podSpec(find(manifests(r.stdout), 'Deployment', 'sandflow-api')[0]!).containers[0]!.env!;
      expect(env.find((e) => e.name === 'SANDFLOW_TRUST_PROXY')?.value).toBe(expected);
    });
  });
});
