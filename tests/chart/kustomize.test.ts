// config/: the kustomize bases (kubebuilder layout) render with kubectl's built-in kustomize, hold
// the CRDs, RBAC, admission policies and both Deployments, and stay equal to crds/ and to the
// chart's RBAC and admission policies.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, inject, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const helm = inject('helm');

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

function kustomize(dir: string): Manifest[] {
  const r = spawnSync('kubectl', ['kustomize', path.join(root, dir)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${r.stderr || r.error?.message}`);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

const names = (all: Manifest[], kind: string) =>
  all
    .filter((m) => m.kind === kind)
    .map((m) => m.metadata.name)
    .sort();

describe('config/ kustomize bases', () => {
  const all = kustomize('config/default');

  it('config/default: the namespace, the CRDs, the RBAC, both Deployments and the Service', () => {
    const crdNames = fs
      .readdirSync(path.join(root, 'crds'))
      .filter((f) => f.endsWith('.yaml'))
      .map(
        (f) =>
          (parseAllDocuments(fs.readFileSync(path.join(root, 'crds', f), 'utf8'))[0]!.toJS() as Manifest)
            .metadata.name,
      )
      .sort();
    expect(names(all, 'Namespace')).toEqual(['sandflow-system']);
    expect(names(all, 'CustomResourceDefinition')).toEqual(crdNames);
    expect(names(all, 'ServiceAccount')).toEqual(['sandflow-api', 'sandflow-operator']);
    expect(names(all, 'ClusterRole')).toEqual([
      'sandflow-api',
      'sandflow-operator',
      'sandflow-workflow-executor',
    ]);
    expect(names(all, 'ClusterRoleBinding')).toEqual(['sandflow-api', 'sandflow-operator']);
    expect(names(all, 'Role')).toEqual(['sandflow-leader-election']);
    expect(names(all, 'RoleBinding')).toEqual(['sandflow-leader-election']);
    expect(names(all, 'Deployment')).toEqual(['sandflow-api', 'sandflow-operator']);
    expect(names(all, 'Service')).toEqual(['sandflow']);
    const POLICIES = ['sandflow-api-namespaces', 'sandflow-api-pods', 'sandflow-operator-executor'];
    expect(names(all, 'ValidatingAdmissionPolicy')).toEqual(POLICIES);
    expect(names(all, 'ValidatingAdmissionPolicyBinding')).toEqual(POLICIES);
    // Everything namespaced lands in sandflow-system, and the bindings name the accounts there.
    for (const m of all.filter((x) =>
      ['ServiceAccount', 'Role', 'RoleBinding', 'Deployment', 'Service'].includes(x.kind),
    ))
      expect(m.metadata.namespace, `${m.kind}/${m.metadata.name}`).toBe('sandflow-system');
    for (const m of all.filter((x) => ['ClusterRoleBinding', 'RoleBinding'].includes(x.kind)))
      for (const s of (m as unknown as { subjects: { namespace: string }[] }).subjects)
        expect(s.namespace, `${m.kind}/${m.metadata.name}`).toBe('sandflow-system');
    for (const m of all)
      expect(m.metadata.labels?.['app.kubernetes.io/part-of'], m.metadata.name).toBe('sandflow');
  });

  it('the Deployments run the cluster-mode entrypoints as their ServiceAccounts, non-root, read-only root', () => {
    for (const [name, entry] of [
      ['sandflow-operator', 'embedded/src/cluster/operator.ts'],
      ['sandflow-api', 'embedded/src/cluster/api.ts'],
    ] as const) {
      const d = all.find((m) => m.kind === 'Deployment' && m.metadata.name === name)!;
      const spec = (d.spec as { template: { spec: Record<string, unknown> } }).template.spec as {
        serviceAccountName: string;
        securityContext: object;
        containers: { command: string[]; securityContext: object }[];
      };
      expect(spec.serviceAccountName).toBe(name);
      expect(spec.containers[0]!.command).toEqual(['node', '--import', 'tsx', entry]);
      expect(fs.existsSync(path.join(root, entry))).toBe(true);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(spec.containers[0]!.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
    }
    const api = all.find((m) => m.kind === 'Deployment' && m.metadata.name === 'sandflow-api')!;
    expect(JSON.stringify(api.spec)).toContain('"path":"/readyz"');
    // As the chart's: Argo's workflow Pods run as the ServiceAccount bound to the executor's role.
    const operator = all.find((m) => m.kind === 'Deployment' && m.metadata.name === 'sandflow-operator')!;
    expect(JSON.stringify(operator.spec)).toContain(
      '{"name":"SANDFLOW_EXECUTOR_CLUSTERROLE","value":"sandflow-workflow-executor"}',
    );
  });

  it.each(['config/crd', 'config/rbac', 'config/admission', 'config/operator', 'config/api'])(
    '%s renders on its own',
    (dir) => {
      expect(kustomize(dir).length).toBeGreaterThan(0);
    },
  );

  it('config/crd/bases/ is crds/*.yaml byte for byte', () => {
    const ours = fs.readdirSync(path.join(root, 'crds')).filter((f) => f.endsWith('.yaml'));
    expect(fs.readdirSync(path.join(root, 'config/crd/bases')).sort()).toEqual(ours.sort());
    for (const f of ours)
      expect(fs.readFileSync(path.join(root, 'config/crd/bases', f), 'utf8'), f).toBe(
        fs.readFileSync(path.join(root, 'crds', f), 'utf8'),
      );
  });

  it.skipIf(!helm)("the RBAC rules and the builder's settings are the chart's", () => {
    const r = spawnSync(
      helm,
      [
        'template',
        'sandflow',
        path.join(root, 'charts/sandflow'),
        '--kube-version',
        '1.33.0',
        '-f',
        path.join(root, 'charts/sandflow/ci/default-values.yaml'),
      ],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    const chart = parseAllDocuments(r.stdout)
      .map((d) => d.toJS() as Manifest | null)
      .filter((m): m is Manifest => m !== null);
    const rules = (from: Manifest[], kind: string, name: string) =>
      (from.find((m) => m.kind === kind && m.metadata.name === name) as unknown as { rules: Rule[] }).rules;
    for (const [kind, name] of [
      ['ClusterRole', 'sandflow-operator'],
      ['ClusterRole', 'sandflow-api'],
      ['ClusterRole', 'sandflow-workflow-executor'],
      ['Role', 'sandflow-leader-election'],
    ] as const)
      expect(rules(all, kind, name), `${kind}/${name}`).toEqual(rules(chart, kind, name));
    // The sandbox builder is on in both (its Pods and pods/exec in the API's rules compared above),
    // and the API is told the same: enabled, with the same helper image.
    const builderEnv = (from: Manifest[]) =>
      (
        from.find((m) => m.kind === 'Deployment' && m.metadata.name === 'sandflow-api')!.spec as {
          template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
        }
      ).template.spec.containers[0]!.env.filter((e) => e.name.startsWith('SANDFLOW_BUILDER_'));
    expect(builderEnv(all)).toEqual([
      { name: 'SANDFLOW_BUILDER_ENABLED', value: 'true' },
      { name: 'SANDFLOW_BUILDER_HELPER_IMAGE', value: 'busybox:1.36.1-musl' },
    ]);
    expect(builderEnv(all)).toEqual(builderEnv(chart));
  });

  it.skipIf(!helm)(
    "the admission policies are the chart's, naming the accounts in config/default's namespace",
    () => {
      const r = spawnSync(
        helm,
        [
          'template',
          'sandflow',
          path.join(root, 'charts/sandflow'),
          '--namespace',
          'sandflow-system',
          '--kube-version',
          '1.33.0',
          '-f',
          path.join(root, 'charts/sandflow/ci/default-values.yaml'),
        ],
        { encoding: 'utf8' },
      );
      expect(r.status, r.stderr).toBe(0);
      const chart = parseAllDocuments(r.stdout)
        .map((d) => d.toJS() as Manifest | null)
        .filter((m): m is Manifest => m !== null);
      const specs = (from: Manifest[]) =>
        Object.fromEntries(
          from
            .filter((m) => m.kind.startsWith('ValidatingAdmissionPolicy'))
            .map((m) => [`${m.kind}/${m.metadata.name}`, m.spec]),
        );
      expect(Object.keys(specs(all))).toHaveLength(6);
      expect(specs(all)).toEqual(specs(chart));
      expect(JSON.stringify(specs(all))).toContain(
        "request.userInfo.username == 'system:serviceaccount:sandflow-system:sandflow-api'",
      );
      // On its own the base names the placeholder namespace, as config/rbac's bindings do.
      expect(JSON.stringify(specs(kustomize('config/admission')))).toContain(
        "request.userInfo.username == 'system:serviceaccount:system:sandflow-operator'",
      );
    },
  );
});
