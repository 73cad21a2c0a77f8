import { describe, expect, it } from 'vitest';
import type { Sandbox, WorkflowSpec } from '../generated/types.gen.js';
import { nodeDependencies, normalizeGraph } from './graph.js';
import { mayExecute, validateWorkflow, WORKFLOW_MESSAGES } from './workflow.js';

const node = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  sandbox: `uuid-${id}`,
  ...extra,
});
const spec = (over: Partial<WorkflowSpec> = {}): WorkflowSpec => ({
  name: 'wf',
  owner: 'u1',
  nodes: [node('a'), node('b'), node('c')],
  edges: [
    { id: 'e1', from: 'a', to: 'b' },
    { id: 'e2', from: 'b', to: 'c' },
  ],
  ...over,
});
const sandbox = (owner: string, permissions: Sandbox['spec']['permissions'] = {}): Sandbox => ({
  apiVersion: 'sandflow.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: 'x' },
  spec: { name: 'x', entrypoint: '/run.sh', owner, permissions },
});
const messages = (s: WorkflowSpec, ctx = {}) => validateWorkflow(s, ctx).issues.map((i) => i.message);

describe('validateWorkflow', () => {
  it('accepts a valid chain and reports status.valid with a True condition', () => {
    const r = validateWorkflow(spec(), { generation: 3, now: new Date('2026-01-01T00:00:00Z') });
    expect(r.valid).toBe(true);
    expect(r.order).toEqual(['a', 'b', 'c']);
    expect(r.status).toMatchObject({
      valid: true,
      phase: 'Valid',
      observedGeneration: 3,
      conditions: [{ type: 'Valid', status: 'True', lastTransitionTime: '2026-01-01T00:00:00.000Z' }],
    });
  });

  it.each([
    ['empty name', spec({ name: '  ' }), 'Please, enter a valid workflow name'],
    [
      'variable without value',
      spec({ nodes: [node('a', { variables: [{ name: 'K', value: '' }] })], edges: [] }),
      'You have empty fields on environment variables',
    ],
    [
      'duplicate names',
      spec({ nodes: [node('a'), { ...node('b'), name: 'a' }], edges: [] }),
      'Find two or more sandbox with the same name',
    ],
    [
      'node without sandbox',
      spec({ nodes: [{ id: 'a', name: 'a' }], edges: [] }),
      'This sandbox has no attributes',
    ],
    ['self edge', spec({ edges: [{ id: 'e', from: 'a', to: 'a' }] }), 'Source and destination are the same'],
    [
      'cycle',
      spec({
        edges: [
          { id: 'e1', from: 'a', to: 'b' },
          { id: 'e2', from: 'b', to: 'c' },
          { id: 'e3', from: 'c', to: 'a' },
        ],
      }),
      'The current edge would create a cycle in the workflow',
    ],
    ['no nodes', spec({ nodes: [], edges: [] }), WORKFLOW_MESSAGES.noNodes],
  ])('rejects %s with the product message', (_label, s, message) => {
    const r = validateWorkflow(s);
    expect(r.valid).toBe(false);
    expect(r.issues.map((i) => i.message)).toContain(message);
    expect(r.status.conditions?.[0]).toMatchObject({
      type: 'Valid',
      status: 'False',
      reason: 'ValidationFailed',
    });
    expect(r.status.conditions?.[0]?.message).toContain(message);
  });

  it('reports the edge that closes the cycle, as the editor would refuse it', () => {
    const r = validateWorkflow(
      spec({
        edges: [
          { id: 'e1', from: 'a', to: 'b' },
          { id: 'e2', from: 'b', to: 'c' },
          { id: 'e3', from: 'c', to: 'a' },
        ],
      }),
    );
    expect(r.issues).toEqual([{ code: 'cycle', message: WORKFLOW_MESSAGES.cycle, edgeId: 'e3' }]);
  });

  it('a variable with a value but no name is not an empty-value error', () => {
    expect(
      messages(spec({ nodes: [node('a', { variables: [{ name: 'A', value: '1' }] })], edges: [] })),
    ).toEqual([]);
  });

  it('defaults switch outputs to success then fail and adds start edges', () => {
    const g = normalizeGraph({
      nodes: [node('a'), node('ok'), node('ko')],
      switches: [{ id: 's' }],
      edges: [
        { id: 'in', from: 'a', to: 's' },
        { id: 'o1', from: 's', to: 'ok' },
        { id: 'o2', from: 's', to: 'ko' },
      ],
    });
    expect(g.edges.find((e) => e.id === 'in')?.type).toBe('switchInput');
    expect(g.edges.filter((e) => e.type === 'switchOutput').map((e) => e.switchCondition)).toEqual([
      'success',
      'fail',
    ]);
    expect(g.edges.filter((e) => e.type === 'start').map((e) => e.to)).toEqual(['a']);
    const deps = nodeDependencies(g);
    expect(deps.get('ko')).toMatchObject([{ kind: 'switch', from: 'a', when: 'fail' }]);
    expect(deps.get('a')).toMatchObject([{ kind: 'start' }]);
  });

  it('rejects malformed switches and edges to unknown nodes', () => {
    expect(
      messages(
        spec({
          switches: [{ id: 's' }],
          edges: [
            { id: 'o', from: 's', to: 'a' },
            { id: 'x', from: 'a', to: 'zz' },
          ],
        }),
      ),
    ).toEqual(expect.arrayContaining([WORKFLOW_MESSAGES.switchInput, WORKFLOW_MESSAGES.unknownEndpoint]));
    expect(
      messages(
        spec({
          edges: [
            { id: 'm1', from: 'a', to: 'c', type: 'multi' },
            { id: 'm2', from: 'b', to: 'c', type: 'multi' },
          ],
        }),
      ),
    ).toContain(WORKFLOW_MESSAGES.multipleMulti);
  });

  it('checks that referenced sandboxes exist and the owner may execute them', () => {
    const store: Record<string, Sandbox> = {
      'uuid-a': sandbox('u1'),
      'uuid-b': sandbox('u2', { g1: { read: true, execute: true } }),
      'uuid-c': sandbox('u2', { g2: { read: true } }),
    };
    const resolveSandbox = (n: { sandbox?: string }) => store[n.sandbox ?? ''];
    const r = validateWorkflow(spec(), { resolveSandbox, executor: { id: 'u1', groups: ['g1', 'g2'] } });
    expect(r.issues).toEqual([
      { code: 'sandboxNotExecutable', message: WORKFLOW_MESSAGES.sandboxNotExecutable, nodeId: 'c' },
    ]);
    delete store['uuid-a'];
    expect(messages(spec(), { resolveSandbox, executor: { id: 'u1', groups: ['g1'] } })).toContain(
      WORKFLOW_MESSAGES.sandboxNotFound,
    );
    expect(mayExecute(sandbox('u9', { _public: { execute: true } }), { id: 'u1' })).toBe(true);
  });
});
