// The chart's RBAC on a real kube-apiserver (hack/envtest: `npm run test:envtest` runs this project
// with SANDFLOW_KUBE_TARGET=external and KUBECONFIG naming its admin): the chart's ServiceAccounts,
// ClusterRoles and bindings are applied; the server's own authorizer (SubjectAccessReview through
// `kubectl auth can-i --as`) allows what each component needs and refuses the rest, and a request
// with the operator ServiceAccount's own token (TokenRequest) outside its role gets 403.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

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

function kubectl(args: string[], input?: string) {
  const r = spawnSync('kubectl', args, { encoding: 'utf8', ...(input ? { input } : {}) });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

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
  it.each(['default-values.yaml', 'ingress-values.yaml', 'postgresql-values.yaml'])(
    'kubectl apply --dry-run=server accepts the whole chart rendered with ci/%s',
    (file) => {
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
    },
  );

  it('a request outside the role is refused with 403 for the operator token', () => {
    const r = kubectl(['--kubeconfig', operatorKubeconfig, 'get', 'secrets', '-A']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/Forbidden|forbidden/);
    expect(r.err).toContain(`User "${OPERATOR}" cannot list resource "secrets"`);
  });
});
