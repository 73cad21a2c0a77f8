// The chart's ValidatingAdmissionPolicies on a real kube-apiserver (hack/envtest: `npm run
// test:envtest` runs this project with SANDFLOW_KUBE_TARGET=external and KUBECONFIG naming its
// admin). RBAC gives the API Pods and pods/exec, and the operator ServiceAccounts and RoleBindings,
// in every namespace; admissionPolicy.enabled keeps them to namespaces labelled
// sandflow.io/organization. Two releases are applied (ServiceAccounts, RBAC and policies), one with
// the policies and one without, and each account acts with its own bound token: with the policies
// a Pod, an exec or a RoleBinding in a group namespace is accepted and in default or kube-system
// refused with a message naming the namespace; without them the same requests pass (so the refusal
// is the policy's, not RBAC's). The API may not take over or delete a namespace that is not
// Sandflow's (it could otherwise label one and make Pods there), and what the policies do not
// match (the operator's Lease, the API's reads) is untouched.
import {
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
  type V1Namespace,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chartObjects, kubectl, mustKubectl, openExec, statusOf, tokenConfig } from './envtest-support.js';

const external = process.env.SANDFLOW_KUBE_TARGET === 'external' && !!process.env.KUBECONFIG;
const helm = inject('helm');

if (!external)
  console.warn(
    'chart-envtest SKIPPED: needs a real kube-apiserver with RBAC — run `npm run test:envtest` (hack/envtest/run.ts)',
  );

// Releases of their own (ClusterRoles and policies vap-sandflow-* and novap-sandflow-*), apart from
// rbac.envtest.ts's and serviceaccounts.envtest.ts's.
const ON = { release: 'vap', namespace: 'sandflow-vap', policy: 'on' } as const;
const OFF = { release: 'novap', namespace: 'sandflow-novap', policy: 'off' } as const;
type Release = typeof ON | typeof OFF;
const KINDS = [
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
];
const ORG_LABEL = 'sandflow.io/organization';
// A group namespace as the API makes it (sf-<org>-<group>, both labels), and two that are not
// Sandflow's.
const GROUP_NS = 'sf-vapproof-research';
const NOT_OURS = ['default', 'kube-system'] as const;
const notSandflow = (namespace: string) =>
  `namespace ${namespace} is not a Sandflow namespace (no ${ORG_LABEL} label)`;
const deniedBy = (r: Release, policy: string) =>
  `ValidatingAdmissionPolicy '${r.release}-sandflow-${policy}' with binding '${r.release}-sandflow-${policy}' denied request`;
// Pods the admin makes (no kubelet runs them): one to exec into and one to delete, per namespace.
const EXEC_POD = 'vap-proof-exec';
const VICTIM_POD = 'vap-proof-victim';
const BUILDER_POD = 'vap-proof-builder';
// Namespaces of the API's namespace writes.
const FOREIGN_NS = 'vap-proof-foreign';
const UNLABELLED_NS = 'vap-proof-unlabelled';
const NEW_ORG_NS = 'sf-vapproof-other';

const pod = (name: string, namespace: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels: { 'sandflow.io/builder': 'vap-proof' } },
  spec: {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    containers: [{ name: 'builder', image: 'busybox:1.36.1-musl', command: ['sleep', 'infinity'] }],
  },
});

/** Waits until `call` is refused (403), for at most `ms`. */
async function refusedWithin(ms: number, what: string, call: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { code } = await statusOf(call());
    if (code === 403) return;
    if (Date.now() > deadline) throw new Error(`${what}: still ${code} after ${ms} ms, not 403`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(!external || !helm)(
  "the chart's admission policies (admissionPolicy.enabled) on a real kube-apiserver",
  () => {
    const admin = new KubeConfig();
    // Each release's API and operator, with their own ServiceAccount's token.
    const api = {} as Record<Release['policy'], KubeConfig>;
    const operator = {} as Record<Release['policy'], KubeConfig>;
    const core = (kc: KubeConfig) => kc.makeApiClient(CoreV1Api);

    beforeAll(async () => {
      admin.loadFromDefault();
      for (const r of [ON, OFF]) {
        const objects = chartObjects(
          helm,
          r.release,
          r.namespace,
          KINDS,
          r === OFF ? ['--set', 'admissionPolicy.enabled=false'] : [],
        );
        const policies = objects.filter((m) => m.kind.startsWith('ValidatingAdmissionPolicy'));
        expect(policies.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual(
          r === ON
            ? ['api-namespaces', 'api-pods', 'operator-executor']
                .flatMap((p) => [
                  `ValidatingAdmissionPolicy/vap-sandflow-${p}`,
                  `ValidatingAdmissionPolicyBinding/vap-sandflow-${p}`,
                ])
                .sort()
            : [],
        );
        mustKubectl(['create', 'namespace', r.namespace]);
        mustKubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
        api[r.policy] = tokenConfig(admin, `${r.release}-sandflow-api`, r.namespace);
        operator[r.policy] = tokenConfig(admin, `${r.release}-sandflow-operator`, r.namespace);
      }
      mustKubectl(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: GROUP_NS, labels: { [ORG_LABEL]: 'vapproof', 'sandflow.io/group': 'research' } },
        }),
      );
      mustKubectl(['create', 'namespace', FOREIGN_NS]);
      for (const namespace of [GROUP_NS, ...NOT_OURS])
        for (const name of [EXEC_POD, VICTIM_POD])
          await core(admin).createNamespacedPod({ namespace, body: pod(name, namespace) });
      // A policy applies once the server's informers have it and its binding: until then a dry
      // run of what it refuses passes.
      await refusedWithin(30_000, 'a builder Pod in default, by the API', () =>
        core(api.on).createNamespacedPod({
          namespace: 'default',
          body: pod(BUILDER_POD, 'default'),
          dryRun: 'All',
        }),
      );
      await refusedWithin(30_000, 'a ServiceAccount in default, by the operator', () =>
        core(operator.on).createNamespacedServiceAccount({
          namespace: 'default',
          body: { metadata: { name: 'sandflow-workflow' } },
          dryRun: 'All',
        }),
      );
      await refusedWithin(30_000, 'an unlabelled namespace, by the API', () =>
        core(api.on).createNamespace({ body: { metadata: { name: UNLABELLED_NS } }, dryRun: 'All' }),
      );
    }, 90_000);

    afterAll(() => {
      for (const namespace of NOT_OURS) {
        kubectl(['delete', 'pod', EXEC_POD, VICTIM_POD, BUILDER_POD, '-n', namespace, '--ignore-not-found']);
        kubectl(['delete', 'serviceaccount', 'sandflow-workflow', '-n', namespace, '--ignore-not-found']);
        for (const r of [ON, OFF])
          kubectl([
            'delete',
            'rolebinding',
            `${r.release}-sandflow-workflow-executor`,
            '-n',
            namespace,
            '--ignore-not-found',
          ]);
      }
      kubectl([
        'delete',
        'namespace',
        ON.namespace,
        OFF.namespace,
        GROUP_NS,
        FOREIGN_NS,
        UNLABELLED_NS,
        NEW_ORG_NS,
        '--wait=false',
        '--ignore-not-found',
      ]);
      for (const r of [ON, OFF]) {
        kubectl([
          'delete',
          'clusterrole,clusterrolebinding',
          `${r.release}-sandflow-operator`,
          `${r.release}-sandflow-api`,
          '--ignore-not-found',
        ]);
        kubectl(['delete', 'clusterrole', `${r.release}-sandflow-workflow-executor`, '--ignore-not-found']);
        kubectl([
          'delete',
          'validatingadmissionpolicy,validatingadmissionpolicybinding',
          ...['api-pods', 'api-namespaces', 'operator-executor'].map((p) => `${r.release}-sandflow-${p}`),
          '--ignore-not-found',
        ]);
      }
    });

    // The sandbox builder's Pod, as the API's ServiceAccount: made (and then deleted by the same
    // account) where allowed.
    it.each([
      { r: ON, namespace: GROUP_NS, allowed: true },
      { r: ON, namespace: 'default', allowed: false },
      { r: ON, namespace: 'kube-system', allowed: false },
      { r: OFF, namespace: 'default', allowed: true },
      { r: OFF, namespace: 'kube-system', allowed: true },
    ])(
      'policies $r.policy: the API makes a Pod in $namespace: $allowed',
      async ({ r, namespace, allowed }) => {
        const created = await statusOf(
          core(api[r.policy]).createNamespacedPod({ namespace, body: pod(BUILDER_POD, namespace) }),
        );
        if (!allowed) {
          expect(created.message).toContain(deniedBy(r, 'api-pods'));
          expect(created.message).toContain(notSandflow(namespace));
          expect(created.code).toBe(403);
          return;
        }
        expect(created).toEqual({ code: 200, message: '' });
        const deleted = await statusOf(
          core(api[r.policy]).deleteNamespacedPod({ name: BUILDER_POD, namespace, gracePeriodSeconds: 0 }),
        );
        expect(deleted).toEqual({ code: 200, message: '' });
      },
    );

    // Another's Pod: the policy refuses its deletion outside Sandflow's namespaces (in this order:
    // the refused attempt first, then the same deletion without the policy).
    it.each([
      { r: ON, namespace: GROUP_NS, allowed: true },
      { r: ON, namespace: 'default', allowed: false },
      { r: ON, namespace: 'kube-system', allowed: false },
      { r: OFF, namespace: 'default', allowed: true },
      { r: OFF, namespace: 'kube-system', allowed: true },
    ])(
      "policies $r.policy: the API deletes the admin's Pod in $namespace: $allowed",
      async ({ r, namespace, allowed }) => {
        const deleted = await statusOf(
          core(api[r.policy]).deleteNamespacedPod({ name: VICTIM_POD, namespace, gracePeriodSeconds: 0 }),
        );
        if (allowed) expect(deleted).toEqual({ code: 200, message: '' });
        else {
          expect(deleted.message).toContain(deniedBy(r, 'api-pods'));
          expect(deleted.message).toContain(notSandflow(namespace));
          expect(deleted.code).toBe(403);
          const left = await core(admin).readNamespacedPod({ name: VICTIM_POD, namespace });
          expect(left.metadata?.deletionTimestamp).toBeUndefined();
        }
      },
    );

    // pods/exec is a CONNECT to admission, and the policy matches it over both transports. Allowed,
    // the request gets past RBAC and admission to the missing kubelet (400); refused, 403.
    it.each(
      (['GET', 'POST'] as const).flatMap((method) => [
        { r: ON, method, namespace: GROUP_NS, allowed: true },
        { r: ON, method, namespace: 'default', allowed: false },
        { r: ON, method, namespace: 'kube-system', allowed: false },
        { r: OFF, method, namespace: 'kube-system', allowed: true },
      ]),
    )(
      'policies $r.policy: the API opens pods/exec by $method in $namespace: $allowed',
      async ({ r, method, namespace, allowed }) => {
        const opened = await openExec(api[r.policy], method, namespace, EXEC_POD);
        if (allowed) {
          expect(opened.message).toContain(`pod ${EXEC_POD} does not have a host assigned`);
          expect(opened.status).toBe(400);
        } else {
          expect(opened.message).toContain(deniedBy(r, 'api-pods'));
          expect(opened.message).toContain(notSandflow(namespace));
          expect(opened.status).toBe(403);
        }
      },
    );

    // What the operator makes where workflows run: the ServiceAccount sandflow-workflow and its
    // RoleBinding to the executor's ClusterRole.
    it.each([
      { r: ON, namespace: GROUP_NS, allowed: true },
      { r: ON, namespace: 'default', allowed: false },
      { r: ON, namespace: 'kube-system', allowed: false },
      { r: OFF, namespace: 'default', allowed: true },
    ])(
      "policies $r.policy: the operator makes the executor's ServiceAccount and RoleBinding in $namespace: $allowed",
      async ({ r, namespace, allowed }) => {
        const kc = operator[r.policy];
        const role = `${r.release}-sandflow-workflow-executor`;
        const account = await statusOf(
          core(kc).createNamespacedServiceAccount({
            namespace,
            body: { metadata: { name: 'sandflow-workflow', namespace } },
          }),
        );
        const binding = await statusOf(
          kc.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
            namespace,
            body: {
              metadata: { name: role, namespace },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
              subjects: [{ kind: 'ServiceAccount', name: 'sandflow-workflow', namespace }],
            },
          }),
        );
        for (const outcome of [account, binding])
          if (allowed) expect(outcome).toEqual({ code: 200, message: '' });
          else {
            expect(outcome.message).toContain(deniedBy(r, 'operator-executor'));
            expect(outcome.message).toContain(notSandflow(namespace));
            expect(outcome.code).toBe(403);
          }
      },
    );

    it('policies on: the operator may not relabel a ServiceAccount outside Sandflow’s namespaces; off: it may', async () => {
      mustKubectl(['create', 'serviceaccount', 'vap-proof-other', '-n', 'default']);
      try {
        const patch = (kc: KubeConfig) =>
          statusOf(
            core(kc).patchNamespacedServiceAccount({
              name: 'vap-proof-other',
              namespace: 'default',
              body: [{ op: 'add', path: '/metadata/labels', value: { 'sandflow.io/adopted': 'yes' } }],
            }),
          );
        const refused = await patch(operator.on);
        expect(refused.message).toContain(notSandflow('default'));
        expect(refused.code).toBe(403);
        expect(await patch(operator.off)).toEqual({ code: 200, message: '' });
      } finally {
        kubectl(['delete', 'serviceaccount', 'vap-proof-other', '-n', 'default', '--ignore-not-found']);
      }
    });

    // The API makes namespaces labelled and changes or deletes only labelled ones: otherwise it
    // could label kube-system (or its own release namespace) and make Pods there.
    it('policies on: the API makes a namespace only with the organization label', async () => {
      const unlabelled = await statusOf(
        core(api.on).createNamespace({ body: { metadata: { name: UNLABELLED_NS } } }),
      );
      expect(unlabelled.message).toContain(deniedBy(ON, 'api-namespaces'));
      expect(unlabelled.message).toContain(
        `namespace ${UNLABELLED_NS} would not be a Sandflow namespace (no ${ORG_LABEL} label)`,
      );
      expect(unlabelled.code).toBe(403);
      const labelled = await statusOf(
        core(api.on).createNamespace({
          body: { metadata: { name: NEW_ORG_NS, labels: { [ORG_LABEL]: 'vapproof-other' } } },
        }),
      );
      expect(labelled).toEqual({ code: 200, message: '' });
    });

    it.each([
      { name: FOREIGN_NS, what: 'a namespace made by someone else' },
      { name: ON.namespace, what: 'its own release namespace' },
      { name: 'kube-system', what: 'kube-system' },
    ])('policies on: the API may not label $what ($name) as Sandflow’s', async ({ name }) => {
      const existing = await core(api.on).readNamespace({ name });
      const body: V1Namespace = {
        ...existing,
        metadata: { ...existing.metadata, labels: { ...existing.metadata?.labels, [ORG_LABEL]: 'taken' } },
      };
      const replaced = await statusOf(core(api.on).replaceNamespace({ name, body }));
      expect(replaced.message).toContain(deniedBy(ON, 'api-namespaces'));
      expect(replaced.message).toContain(notSandflow(name));
      expect(replaced.code).toBe(403);
      expect((await core(admin).readNamespace({ name })).metadata?.labels?.[ORG_LABEL]).toBeUndefined();
    });

    it('policies on: the API deletes a Sandflow namespace but not another', async () => {
      const foreign = await statusOf(core(api.on).deleteNamespace({ name: FOREIGN_NS }));
      expect(foreign.message).toContain(notSandflow(FOREIGN_NS));
      expect(foreign.code).toBe(403);
      expect((await core(admin).readNamespace({ name: FOREIGN_NS })).status?.phase).toBe('Active');
      expect(await statusOf(core(api.on).deleteNamespace({ name: NEW_ORG_NS }))).toEqual({
        code: 200,
        message: '',
      });
    });

    it('policies off: the same namespace writes pass (RBAC allows them)', async () => {
      expect(
        await statusOf(
          core(api.off).createNamespace({ body: { metadata: { name: UNLABELLED_NS } }, dryRun: 'All' }),
        ),
      ).toEqual({ code: 200, message: '' });
      const existing = await core(api.off).readNamespace({ name: FOREIGN_NS });
      const body: V1Namespace = {
        ...existing,
        metadata: { ...existing.metadata, labels: { ...existing.metadata?.labels, [ORG_LABEL]: 'taken' } },
      };
      expect(
        await statusOf(core(api.off).replaceNamespace({ name: FOREIGN_NS, body, dryRun: 'All' })),
      ).toEqual({ code: 200, message: '' });
      expect(await statusOf(core(api.off).deleteNamespace({ name: FOREIGN_NS, dryRun: 'All' }))).toEqual({
        code: 200,
        message: '',
      });
    });

    it('policies on: what they do not match is untouched (the Lease, the reads, the admin)', async () => {
      // The operator's leader Lease in its release namespace.
      const lease = await statusOf(
        operator.on.makeApiClient(CoordinationV1Api).createNamespacedLease({
          namespace: ON.namespace,
          body: {
            metadata: { name: 'sandflow-operator', namespace: ON.namespace },
            spec: { holderIdentity: 'vap-sandflow-operator-0', leaseDurationSeconds: 15 },
          },
        }),
      );
      expect(lease).toEqual({ code: 200, message: '' });
      // The API's reads of Pods across namespaces, kube-system's included.
      const listed = await core(api.on).listPodForAllNamespaces({ labelSelector: 'sandflow.io/builder' });
      expect(listed.items.map((p) => `${p.metadata!.namespace}/${p.metadata!.name}`)).toEqual(
        expect.arrayContaining([`kube-system/${EXEC_POD}`, `${GROUP_NS}/${EXEC_POD}`]),
      );
      // Other accounts: the admin makes a Pod in kube-system.
      expect(
        await statusOf(
          core(admin).createNamespacedPod({
            namespace: 'kube-system',
            body: pod(BUILDER_POD, 'kube-system'),
            dryRun: 'All',
          }),
        ),
      ).toEqual({ code: 200, message: '' });
    });
  },
);
