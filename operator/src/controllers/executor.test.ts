import type { V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Context } from '../context.js';
import {
  ensureExecutor,
  executorRoleBinding,
  forgetExecutor,
  withExecutor,
  type ExecutorOptions,
} from './executor.js';

const NS = 'sf-demo-research';
const ROLE = 'sandflow-workflow-executor';
const OURS = {
  'app.kubernetes.io/managed-by': 'sandflow-operator',
  'app.kubernetes.io/component': 'workflow-executor',
};

/** An ApiException as client-node raises it for a create of an existing object. */
const alreadyExists = () =>
  Object.assign(new Error('HTTP-Code: 409'), { code: 409, body: { reason: 'AlreadyExists' } });

/**
 * A Context whose Kubernetes API is one namespace's ServiceAccounts and RoleBindings in memory,
 * answering as the API server does (409 AlreadyExists on a second create; a merge patch replaces
 * the lists it names), and recording each call.
 */
function fakeContext(
  executor: ExecutorOptions | undefined,
  existing: { sa?: V1ServiceAccount; rb?: V1RoleBinding } = {},
) {
  const calls: string[] = [];
  const store = { ...existing };
  const core = {
    async createNamespacedServiceAccount({ body }: { namespace: string; body: V1ServiceAccount }) {
      calls.push(`create ServiceAccount ${body.metadata!.name}`);
      if (store.sa) throw alreadyExists();
      store.sa = structuredClone(body);
      return body;
    },
    async readNamespacedServiceAccount({ name }: { name: string }) {
      calls.push(`get ServiceAccount ${name}`);
      return store.sa!;
    },
    async patchNamespacedServiceAccount({ name, body }: { name: string; body: V1ServiceAccount }) {
      calls.push(`patch ServiceAccount ${name}`);
      const labels = { ...store.sa!.metadata!.labels, ...body.metadata!.labels };
      store.sa = { ...store.sa!, metadata: { ...store.sa!.metadata, labels } };
      return store.sa;
    },
  };
  const kube = {
    core,
    async create(kind: { plural: string }, _ns: string, body: V1RoleBinding) {
      calls.push(`create ${kind.plural} ${body.metadata!.name}`);
      if (store.rb) throw alreadyExists();
      store.rb = structuredClone(body);
      return body;
    },
    async get(kind: { plural: string }, _ns: string, name: string) {
      calls.push(`get ${kind.plural} ${name}`);
      return store.rb;
    },
    async patch(kind: { plural: string }, _ns: string, name: string, body: Partial<V1RoleBinding>) {
      calls.push(`patch ${kind.plural} ${name}`);
      store.rb = {
        ...store.rb!,
        metadata: {
          ...store.rb!.metadata,
          labels: { ...store.rb!.metadata!.labels, ...body.metadata!.labels },
        },
        subjects: body.subjects!,
      };
      return store.rb;
    },
  };
  const ctx = {
    kube,
    log: pino({ level: 'silent' }),
    options: { compiler: {}, ...(executor ? { executor } : {}) },
    executorNamespaces: new Set<string>(),
  } as unknown as Context;
  return { ctx, calls, store };
}

const sa = (labels?: Record<string, string>): V1ServiceAccount => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'sandflow-workflow', namespace: NS, ...(labels ? { labels } : {}) },
});
const rb = (over: Partial<V1RoleBinding> = {}): V1RoleBinding => ({
  ...executorRoleBinding(NS, { clusterRole: ROLE }),
  ...over,
});
const WANTED_SUBJECTS = [{ kind: 'ServiceAccount', name: 'sandflow-workflow', namespace: NS }];

describe('ensureExecutor', () => {
  it.each([
    {
      case: 'a new namespace: the ServiceAccount and its RoleBinding are created',
      existing: {},
      calls: ['create ServiceAccount sandflow-workflow', `create rolebindings ${ROLE}`],
    },
    {
      case: 'both made before (another term, a second worker): AlreadyExists is fine, nothing is written',
      existing: { sa: sa(OURS), rb: rb() },
      calls: [
        'create ServiceAccount sandflow-workflow',
        'get ServiceAccount sandflow-workflow',
        `create rolebindings ${ROLE}`,
        `get rolebindings ${ROLE}`,
      ],
    },
    {
      case: 'a ServiceAccount of that name made by someone else is labelled and used',
      existing: { sa: sa({ team: 'x' }), rb: rb() },
      calls: [
        'create ServiceAccount sandflow-workflow',
        'get ServiceAccount sandflow-workflow',
        'patch ServiceAccount sandflow-workflow',
        `create rolebindings ${ROLE}`,
        `get rolebindings ${ROLE}`,
      ],
    },
    {
      case: 'our RoleBinding with subjects added by hand is put back to the one ServiceAccount',
      existing: {
        sa: sa(OURS),
        rb: rb({
          subjects: [...WANTED_SUBJECTS, { kind: 'ServiceAccount', name: 'default', namespace: NS }],
        }),
      },
      calls: [
        'create ServiceAccount sandflow-workflow',
        'get ServiceAccount sandflow-workflow',
        `create rolebindings ${ROLE}`,
        `get rolebindings ${ROLE}`,
        `patch rolebindings ${ROLE}`,
      ],
    },
  ])('$case', async ({ existing, calls: expected }) => {
    const { ctx, calls, store } = fakeContext({ clusterRole: ROLE }, existing);
    await ensureExecutor(ctx, NS);
    expect(calls).toEqual(expected);
    expect(store.sa!.metadata!.labels).toMatchObject(OURS);
    expect(store.rb).toMatchObject({
      metadata: { name: ROLE, namespace: NS, labels: OURS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE },
      subjects: WANTED_SUBJECTS,
    });
    expect(ctx.executorNamespaces.has(NS)).toBe(true);
  });

  it.each([
    {
      case: 'another ClusterRole',
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
    },
    {
      case: 'a Role of that name',
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ROLE },
    },
  ])('a RoleBinding of that name binding $case is refused, not repaired', async ({ roleRef }) => {
    const { ctx, calls } = fakeContext({ clusterRole: ROLE }, { sa: sa(OURS), rb: rb({ roleRef }) });
    await expect(ensureExecutor(ctx, NS)).rejects.toThrow(
      `RoleBinding ${NS}/${ROLE} binds ${roleRef.kind} ${roleRef.name}, not ClusterRole ${ROLE}`,
    );
    expect(calls).not.toContain(`patch rolebindings ${ROLE}`);
    expect(ctx.executorNamespaces.has(NS)).toBe(false);
  });

  it('a ServiceAccount name of its own is the subject', async () => {
    const { ctx, store } = fakeContext({ clusterRole: ROLE, serviceAccountName: 'runner' });
    await ensureExecutor(ctx, NS);
    expect(store.sa!.metadata!.name).toBe('runner');
    expect(store.rb!.subjects).toEqual([{ kind: 'ServiceAccount', name: 'runner', namespace: NS }]);
  });

  it('without an executor ClusterRole (all-in-one mode) nothing is asked of the API', async () => {
    const { ctx, calls, store } = fakeContext(undefined);
    await ensureExecutor(ctx, NS);
    expect(calls).toEqual([]);
    expect(store).toEqual({});
  });

  it('once per namespace and term; again after the namespace was deleted', async () => {
    const { ctx, calls } = fakeContext({ clusterRole: ROLE });
    await ensureExecutor(ctx, NS);
    await ensureExecutor(ctx, NS);
    expect(calls).toHaveLength(2);
    forgetExecutor(ctx, NS);
    await ensureExecutor(ctx, NS);
    expect(calls.slice(2)).toEqual([
      'create ServiceAccount sandflow-workflow',
      'get ServiceAccount sandflow-workflow',
      `create rolebindings ${ROLE}`,
      `get rolebindings ${ROLE}`,
    ]);
  });

  it('an error other than AlreadyExists is raised with the object named', async () => {
    const { ctx } = fakeContext({ clusterRole: ROLE });
    const forbidden = Object.assign(new Error('HTTP-Code: 403'), { code: 403 });
    (
      ctx.kube.core as unknown as { createNamespacedServiceAccount: () => Promise<never> }
    ).createNamespacedServiceAccount = () => Promise.reject(forbidden);
    await expect(ensureExecutor(ctx, NS)).rejects.toThrow(
      `creating ServiceAccount ${NS}/sandflow-workflow failed`,
    );
    expect(ctx.executorNamespaces.has(NS)).toBe(false);
  });
});

describe('withExecutor: the ServiceAccount compiled workflows run as', () => {
  it.each([
    { case: 'no executor: as the namespace default', compiler: undefined, executor: undefined, expected: {} },
    {
      case: 'the executor role: sandflow-workflow',
      compiler: { sharedVolumeSize: '2Gi' },
      executor: { clusterRole: ROLE },
      expected: { sharedVolumeSize: '2Gi', serviceAccountName: 'sandflow-workflow' },
    },
    {
      case: 'its own ServiceAccount name wins over a compiler option',
      compiler: { serviceAccountName: 'other' },
      executor: { clusterRole: ROLE, serviceAccountName: 'runner' },
      expected: { serviceAccountName: 'runner' },
    },
  ])('$case', ({ compiler, executor, expected }) => {
    expect(withExecutor(compiler, executor)).toEqual(expected);
  });
});
