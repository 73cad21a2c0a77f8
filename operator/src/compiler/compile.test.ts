import { describe, expect, it } from 'vitest';
import type { IDAGTask } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/DAGTask';
import type { WorkflowSpec } from '@sandflow/crds';
import { assertValidArgoCronWorkflow, assertValidArgoWorkflow } from './argo-schema.js';
import { CompileError, compileRun, compileSession, END_TASK, taskName } from './compile.js';
import {
  SWITCH_FAIL_JOINED_WITH_SKIPPED_NODE,
  loadSamples,
  nodes,
  sandbox,
  session,
  workflow,
} from './fixtures.js';
import { runDag } from './testing/argo-dag.js';
import { productRun } from './testing/product.js';

const RUN = { name: 'run-1', uid: '1111-2222' };

function compile(spec: Omit<WorkflowSpec, 'name'>, extra: { continueOnFail?: string[] } = {}) {
  const wf = workflow({
    ...spec,
    nodes: spec.nodes?.map((n) => ({ ...n, continueOnFail: Boolean(extra.continueOnFail?.includes(n.id)) })),
  });
  const sandboxes = [...new Set((wf.spec.nodes ?? []).map((n) => n.sandbox!))].map((ref) => {
    const sb = sandbox(ref, { owner: wf.spec.owner });
    sb.metadata.name = ref;
    return sb;
  });
  const argo = compileRun({ workflow: wf, session: session(), sandboxes, run: RUN });
  assertValidArgoWorkflow(argo);
  return argo;
}
const dagOf = (argo: ReturnType<typeof compileRun>) =>
  argo.spec.templates!.find((t) => t.name === 'main')!.dag!.tasks;

/** For every subset of failing sandboxes: Argo phase equals the product outcome (and same nodes ran). */
function expectPhaseMatchesProduct(spec: Omit<WorkflowSpec, 'name'>, cof: string[] = []) {
  const argo = compile(spec, { continueOnFail: cof });
  const tasks = dagOf(argo) as IDAGTask[];
  const ids = (spec.nodes ?? []).map((n) => n.id);
  const byTask = new Map((spec.nodes ?? []).map((n) => [taskName(n), n.id]));
  for (let mask = 0; mask < 1 << ids.length; mask++) {
    const fails = new Set(ids.filter((_, i) => mask & (1 << i)));
    const sim = runDag(tasks, (t) => (fails.has(byTask.get(t) ?? '') ? 'Failed' : 'Succeeded'));
    const product = productRun(spec, new Set(cof), fails);
    const label = `failing: [${[...fails].join(',')}]`;
    expect(sim.phase === 'Succeeded' ? 'COMPLETED' : 'ERROR', label).toBe(product.outcome);
    if (product.outcome === 'COMPLETED') {
      const nameOf = new Map((spec.nodes ?? []).map((n) => [n.id, n.name]));
      const ran = ids.filter((id) =>
        ['Succeeded', 'Failed'].includes(sim.phases.get(taskName({ name: nameOf.get(id)! }))!),
      );
      expect(ran, label).toEqual(product.ran);
    }
  }
}

const SHAPES: Record<string, { spec: Omit<WorkflowSpec, 'name'>; cof?: string[] }> = {
  chain: {
    spec: {
      nodes: nodes('a', 'b', 'c'),
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
      ],
    },
  },
  'switch with success and fail': {
    spec: {
      nodes: nodes('a', 'ok', 'ko'),
      switches: [{ id: 's' }],
      edges: [
        { from: 'a', to: 's' },
        { from: 's', to: 'ok', switchCondition: 'success' },
        { from: 's', to: 'ko', switchCondition: 'fail' },
      ],
    },
  },
  'switch outputs defaulting to success then fail': {
    spec: {
      nodes: nodes('a', 'ok', 'ko'),
      switches: [{ id: 's' }],
      edges: [
        { from: 'a', to: 's' },
        { from: 's', to: 'ok' },
        { from: 's', to: 'ko' },
      ],
    },
  },
  'switch with success only': {
    spec: {
      nodes: nodes('a', 'ok'),
      switches: [{ id: 's' }],
      edges: [
        { from: 'a', to: 's' },
        { from: 's', to: 'ok', switchCondition: 'success' },
      ],
    },
  },
  'switch with fail only': {
    spec: {
      nodes: nodes('a', 'ko'),
      switches: [{ id: 's' }],
      edges: [
        { from: 'a', to: 's' },
        { from: 's', to: 'ko', switchCondition: 'fail' },
      ],
    },
  },
  'switch with a join': {
    spec: {
      nodes: nodes('a', 'ok', 'ko', 'join'),
      switches: [{ id: 's' }],
      edges: [
        { from: 'a', to: 's' },
        { from: 's', to: 'ok', switchCondition: 'success' },
        { from: 's', to: 'ko', switchCondition: 'fail' },
        { from: 'ok', to: 'join' },
        { from: 'ko', to: 'join' },
      ],
    },
  },
  'switch branches continuing': {
    spec: {
      nodes: nodes('a', 'ok', 'ok2', 'ko'),
      switches: [{ id: 's' }],
      edges: [
        { from: 'a', to: 's' },
        { from: 's', to: 'ok' },
        { from: 's', to: 'ko' },
        { from: 'ok', to: 'ok2' },
      ],
    },
  },
  'nested switches': {
    spec: {
      nodes: nodes('a', 'b', 'c', 'd', 'e'),
      switches: [{ id: 's1' }, { id: 's2' }],
      edges: [
        { from: 'a', to: 's1' },
        { from: 's1', to: 'b', switchCondition: 'success' },
        { from: 's1', to: 'c', switchCondition: 'fail' },
        { from: 'b', to: 's2' },
        { from: 's2', to: 'd', switchCondition: 'success' },
        { from: 's2', to: 'e', switchCondition: 'fail' },
      ],
    },
  },
  'join of a switch branch and an independent node': {
    spec: {
      nodes: nodes('a', 'ok', 'x', 'join'),
      switches: [{ id: 's' }],
      edges: [
        { from: 'a', to: 's' },
        { from: 's', to: 'ok', switchCondition: 'success' },
        { from: 'ok', to: 'join' },
        { from: 'x', to: 'join' },
      ],
    },
  },
  'switch fail output joined with a node skipped after the failure': {
    // b is Omitted when a failed (skipped, so c is too) or when s0 did not take a (ignored)
    spec: SWITCH_FAIL_JOINED_WITH_SKIPPED_NODE,
  },
  'continue on fail in the middle': {
    spec: {
      nodes: nodes('a', 'b', 'c'),
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
      ],
    },
    cof: ['b'],
  },
  'continue on fail as leaf': {
    spec: { nodes: nodes('a', 'b'), edges: [{ from: 'a', to: 'b' }] },
    cof: ['b'],
  },
  'continue on fail feeding a switch': {
    spec: {
      nodes: nodes('a', 'ok', 'ko'),
      switches: [{ id: 's' }],
      edges: [
        { from: 'a', to: 's' },
        { from: 's', to: 'ok' },
        { from: 's', to: 'ko' },
      ],
    },
    cof: ['a'],
  },
  'parallel roots joined': {
    spec: {
      nodes: nodes('a', 'b', 'c'),
      edges: [
        { from: 'a', to: 'c' },
        { from: 'b', to: 'c' },
      ],
    },
    cof: ['a'],
  },
  'fan-out and merge': {
    spec: {
      nodes: nodes('a', 'b', 'c'),
      edges: [
        { from: 'a', to: 'b', type: 'multi', instanceType: 'line', instanceInput: 'items.txt' },
        { from: 'b', to: 'c' },
      ],
    },
  },
};

describe('compiler: Argo phase equals the product outcome', () => {
  for (const [name, { spec, cof }] of Object.entries(SHAPES)) {
    it(name, () => expectPhaseMatchesProduct(spec, cof));
  }

  it('the sample workflow', () => {
    const { workflow: wf } = loadSamples();
    const spec = { ...wf.spec, nodes: wf.spec.nodes!.map((n) => ({ ...n, continueOnFail: false })) };
    expectPhaseMatchesProduct(spec, ['n-cleanup']);
  });
});

describe('compiler: constructs', () => {
  it('snapshots every construct', () => {
    for (const [name, { spec, cof }] of Object.entries(SHAPES)) {
      expect(dagOf(compile(spec, { continueOnFail: cof ?? [] }))).toMatchSnapshot(name);
    }
  });

  it('maps edges to depends, switches to results, continueOnFail into the successors, one leaf sf-end', () => {
    const tasks = dagOf(compile(SHAPES['switch with a join']!.spec, { continueOnFail: ['ko'] }));
    const t = Object.fromEntries(tasks.map((x) => [x.name, x]));
    expect(t['sb-a']!.depends).toBeUndefined();
    expect(t['sb-ok']!.depends).toBe('sb-a.Succeeded');
    expect(t['sb-ko']!.depends).toBe('(sb-a.Failed || sb-a.Errored)');
    // Argo's CRDs refuse continueOn beside depends: the successors accept the failure instead
    for (const x of tasks) expect(x.continueOn).toBeUndefined();
    expect(t['sb-join']!.depends).toBe(
      '(sb-ok.Succeeded || (sb-ok.Omitted && (!sb-a.Succeeded))) && ' +
        '(sb-ko.Succeeded || sb-ko.Failed || sb-ko.Errored || (sb-ko.Omitted && (!(sb-a.Failed || sb-a.Errored)))) && ' +
        '(sb-ok.Succeeded || sb-ko.Succeeded || sb-ko.Failed || sb-ko.Errored)',
    );
    expect(t[END_TASK]!.depends).toContain(
      '(sb-ko.Succeeded || sb-ko.Failed || sb-ko.Errored || sb-ko.Omitted',
    );
    const argo = compile(SHAPES['switch with a join']!.spec);
    expect(argo.spec.templates!.find((x) => x.name === 'main')!.dag!.failFast).toBe(false);
  });

  it('tells a branch not taken from a node skipped after a failure, from the switch inputs above', () => {
    const t = Object.fromEntries(
      dagOf(compile(SHAPES['switch fail output joined with a node skipped after the failure']!.spec)).map(
        (x) => [x.name, x.depends],
      ),
    );
    // b hangs from a, which hangs from s0's success output: b is a branch not taken iff x did not succeed
    expect(t['sb-c']).toBe(
      '(sb-a.Failed || sb-a.Errored) && (sb-b.Succeeded || (sb-b.Omitted && (!sb-x.Succeeded)))',
    );
  });

  it('fans out with withParam over the split of the upstream file, or over instanceNumber copies', () => {
    const dynamic = dagOf(compile(SHAPES['fan-out and merge']!.spec));
    const b = dynamic.find((x) => x.name === 'sb-b')!;
    expect(b.withParam).toBe('{{tasks.sf-split-b.outputs.result}}');
    expect(b.depends).toBe('(sf-split-b.Succeeded)');
    expect(dynamic.find((x) => x.name === 'sf-split-b')!.arguments!.parameters).toContainEqual({
      name: 'source',
      value: '/sandflow/a/items.txt',
    });
    const fixed = dagOf(
      compile({ nodes: nodes('a', 'b'), edges: [{ from: 'a', to: 'b', type: 'multi', instanceNumber: 3 }] }),
    );
    expect(fixed.find((x) => x.name === 'sb-b')!.withParam).toBe('["0","1","2"]');
  });

  it('builds container templates: env precedence, resources, GPU, arch, mounts, retry, shared volume, labels', () => {
    const wf = workflow({
      nodes: [
        {
          id: 'n',
          name: 'job_1',
          sandbox: 'sb-job',
          variables: [
            { name: 'B', value: 'node' },
            { name: 'C', value: 'node' },
          ],
        },
      ],
    });
    const sb = sandbox('job', {
      variables: [
        { name: 'A', value: 'sandbox' },
        { name: 'B', value: 'sandbox' },
      ],
      constraints: { cpu: 1500, memory: 2048, disk: 300 },
      gpuRequired: true,
      architecture: 'arm',
      entrypoint: 'python main.py',
      mountPoints: [{ source: '/data/shared', destination: '/data' }],
    });
    const sess = session({
      attempts: 3,
      variables: { job_1: [{ name: 'C', value: 'session' }] },
      resources: { job_1: { memory: 4096 } },
    });
    const argo = compileRun({ workflow: wf, session: sess, sandboxes: [sb], run: RUN });
    assertValidArgoWorkflow(argo);
    const tpl = argo.spec.templates!.find((x) => x.name === 'sb-job-1')!;
    const env = Object.fromEntries(tpl.container!.env!.map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ A: 'sandbox', B: 'node', C: 'session', SANDFLOW_OUTPUT: '/sandflow/job_1' });
    expect(tpl.container!.command).toEqual(['/bin/sh', '-c', 'python main.py']);
    expect(tpl.container!.image).toBe('alpine:3.20');
    expect(tpl.container!.resources).toEqual({
      requests: { cpu: '1500m', memory: '4096Mi', 'ephemeral-storage': '300Mi' },
      limits: { memory: '4096Mi', 'ephemeral-storage': '300Mi', 'nvidia.com/gpu': '1' },
    });
    expect(tpl.nodeSelector).toEqual({ 'kubernetes.io/arch': 'arm64' });
    expect(tpl.retryStrategy).toEqual({ limit: 2, retryPolicy: 'Always' });
    expect(tpl.container!.volumeMounts).toEqual([
      { name: 'sandflow', mountPath: '/sandflow' },
      { name: expect.stringMatching(/^mount-/), mountPath: '/data' },
    ]);
    expect(argo.spec.volumes).toEqual([
      { name: expect.stringMatching(/^mount-/), hostPath: { path: '/data/shared' } },
    ]);
    expect(argo.spec.volumeClaimTemplates![0]!.metadata!.name).toBe('sandflow');
    expect(argo.metadata.labels).toEqual({
      'sandflow.io/organization': 'org',
      'sandflow.io/group': 'grp',
      'sandflow.io/owner': 'u1',
      'sandflow.io/session': 'sess-1',
      'sandflow.io/workflow': 'wf-1',
      'sandflow.io/run': 'run-1',
    });
    expect(argo.metadata.ownerReferences![0]).toMatchObject({ kind: 'Run', name: 'run-1', uid: '1111-2222' });
    expect(argo.metadata.namespace).toBe('sf-org-grp');
    // defaults: 500m / 512Mi / 102Mi (0.1 GB), amd64, no retry with 1 attempt
    const plain = compile({ nodes: nodes('p') });
    const p = plain.spec.templates!.find((x) => x.name === 'sb-p')!;
    expect(p.container!.resources!.requests).toEqual({
      cpu: '500m',
      memory: '512Mi',
      'ephemeral-storage': '102Mi',
    });
    expect(p.nodeSelector).toEqual({ 'kubernetes.io/arch': 'amd64' });
    expect(p.retryStrategy).toBeUndefined();
  });

  it('refuses invalid workflows with the validation messages', () => {
    expect(() =>
      compile({
        nodes: nodes('a', 'b'),
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'a' },
        ],
      }),
    ).toThrow('The current edge would create a cycle in the workflow');
    const wf = workflow({ nodes: nodes('a') });
    try {
      compileRun({
        workflow: wf,
        session: session(),
        sandboxes: [sandbox('a', { owner: 'other' })],
        run: RUN,
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CompileError);
      expect((e as CompileError).issues[0]!.code).toBe('sandboxNotExecutable');
    }
  });
});

describe('compiler: samples', () => {
  const { sandboxes, workflow: wf, sessions } = loadSamples();
  const executor = { id: 'alice', groups: ['research'] };

  it('compiles a run of each sample session into a schema-valid Argo Workflow', () => {
    for (const sess of sessions) {
      const argo = compileRun({
        workflow: wf,
        session: sess,
        sandboxes,
        run: { name: `run-${sess.spec.name.replace(/\W/g, '-')}` },
        executor,
      });
      assertValidArgoWorkflow(argo);
      expect(argo).toMatchSnapshot(sess.spec.name);
    }
  });

  it('compiles the periodic session into a CronWorkflow and the one-off into a run time', () => {
    const [nightly, backfill] = sessions;
    const periodic = compileSession(
      { workflow: wf, session: nightly!, sandboxes, executor },
      new Date('2026-03-01T00:00:00Z'),
    );
    expect(periodic.cronWorkflows).toHaveLength(1);
    const cron = periodic.cronWorkflows[0]!;
    assertValidArgoCronWorkflow(cron);
    expect(cron.spec.schedules).toEqual(['0 2 * * *']);
    expect(cron.spec.suspend).toBe(false);
    expect(cron.metadata.annotations).toEqual({
      'sandflow.io/schedule-start': '2026-01-01T02:00:00.000Z',
      'sandflow.io/schedule-end': '2026-12-31T23:59:00.000Z',
    });
    expect(cron).toMatchSnapshot('nightly CronWorkflow');
    const after = compileSession(
      { workflow: wf, session: nightly!, sandboxes, executor },
      new Date('2027-01-02T00:00:00Z'),
    );
    expect(after.cronWorkflows[0]!.spec.suspend).toBe(true);
    const once = compileSession({ workflow: wf, session: backfill!, sandboxes, executor });
    expect(once.cronWorkflows).toEqual([]);
    expect(once.oneOff).toEqual(['2026-02-01T10:00:00.000Z']);
  });
});

describe('the UID and GID steps run as', () => {
  const fanOut = {
    nodes: nodes('a', 'b'),
    edges: [
      {
        from: 'a',
        to: 'b',
        type: 'multi' as const,
        instanceType: 'line' as const,
        instanceInput: 'items.txt',
      },
    ],
  };
  const compileAs = (annotations: Record<string, string> | undefined) => {
    const sess = session();
    if (annotations) sess.metadata.annotations = annotations;
    const wf = workflow(fanOut);
    const sandboxes = ['sb-a', 'sb-b'].map((ref) => Object.assign(sandbox(ref), { metadata: { name: ref } }));
    const argo = compileRun({ workflow: wf, session: sess, sandboxes, run: RUN });
    assertValidArgoWorkflow(argo);
    return argo;
  };

  it.each<{ annotations: Record<string, string> | undefined; expected: object }>([
    {
      annotations: { 'sandflow.io/run-as-user': '1001', 'sandflow.io/run-as-group': '2002' },
      expected: { securityContext: { runAsUser: 1001, runAsGroup: 2002 } },
    },
    {
      annotations: { 'sandflow.io/run-as-user': '1001' },
      expected: { securityContext: { runAsUser: 1001 } },
    },
    { annotations: undefined, expected: {} },
  ])(
    'session annotations $annotations give every step and the split helper $expected',
    ({ annotations, expected }) => {
      const argo = compileAs(annotations);
      const steps = argo.spec.templates!.filter((t) => t.container || t.script);
      expect(steps.map((t) => t.name).sort()).toEqual(['sb-a', 'sb-b', 'sf-split']);
      for (const t of steps) {
        const c = (t.container ?? t.script)!;
        expect({ ...(c.securityContext ? { securityContext: c.securityContext } : {}) }).toEqual(expected);
      }
    },
  );

  it.each(['-1', 'alice', '1e3', '99999999999'])('refuses the run-as-user annotation %s', (value) => {
    expect(() => compileAs({ 'sandflow.io/run-as-user': value })).toThrow(CompileError);
    expect(() => compileAs({ 'sandflow.io/run-as-user': value })).toThrow(
      /sandflow.io\/run-as-user must be a UID/,
    );
  });
});
