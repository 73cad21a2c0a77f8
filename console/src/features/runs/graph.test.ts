import { describe, expect, it } from 'vitest';
import { run, sandboxStatus } from '../sessions/testing';
import type { RunGraph } from '../sessions/types';
import { NODE_SIZE } from '../workflows/graph/model';
import { RUN_NODE_HANDLES, runFlow } from './graph';

const node = (id: string, x: number | null = 0, y: number | null = 0) => ({
  id,
  name: `step_${id}`,
  x,
  y,
  src_id: 'sb',
  owner: 'u',
  continueOnFail: false,
  variables: [],
});
const graph = (over: Partial<RunGraph>): RunGraph => ({
  name: 'wf',
  version: '1.0.0',
  nodes: [],
  switches: [],
  edges: [],
  conditionEdges: [],
  ...over,
});

describe('the run graph', () => {
  it('draws the starting point with arrows to the roots only', () => {
    const flow = runFlow(
      run({
        workflow: graph({
          nodes: [node('a', 0, 0), node('b', 220, 0), node('c', 0, 150)],
          edges: [{ id: 'ab', from: 'a', to: 'b', type: 'single' }],
        }),
      }),
    );
    expect(flow.edges.map((e) => [e.source, e.target])).toEqual([
      ['a', 'b'],
      ['start', 'a'],
      ['start', 'c'],
    ]);
  });

  it.each([
    ['by id', [sandboxStatus({ id: 'a', name: 'other', status: 'ERROR' })], 'ERROR'],
    ['by name', [sandboxStatus({ id: '', name: 'step_a', status: 'PAUSED' })], 'PAUSED'],
    ['missing', [], 'WAITING'],
  ] as const)('finds a node status %s', (_case, statuses, status) => {
    const flow = runFlow(run({ workflow: graph({ nodes: [node('a')] }), sandbox_statuses: [...statuses] }));
    const sandbox = flow.nodes.find((n) => n.id === 'a')!;
    expect(sandbox.type === 'runSandbox' && sandbox.data.status).toBe(status);
  });

  it('lays out sandboxes saved without a position instead of piling them at the origin', () => {
    const flow = runFlow(
      run({
        workflow: graph({
          nodes: [node('a', null, null), node('b', null, null)],
          edges: [{ id: 'ab', from: 'a', to: 'b', type: 'single' }],
        }),
      }),
    );
    const [a, b] = ['a', 'b'].map((id) => flow.nodes.find((n) => n.id === id)!.position);
    expect(b!.x).toBeGreaterThan(a!.x);
  });

  it('leaves out edges whose ends are not drawn', () => {
    const flow = runFlow(
      run({
        workflow: graph({
          nodes: [node('a')],
          conditionEdges: [{ id: 'ax', from: 'a', to: 'gone', type: 'single' }],
        }),
      }),
    );
    expect(flow.edges.map((e) => e.id)).toEqual(['start->a']);
  });

  // A node React Flow knows the size and handles of is drawn only when on screen; one it does not is
  // drawn at once to be measured (every node of a big run, the dashboard's slow first render).
  it.each([
    ['a sandbox', 'a', NODE_SIZE, true],
    ['the starting point', 'start', undefined, false],
  ] as const)('gives %s its size and handles before it is drawn: %s', (_case, id, size, handles) => {
    const flow = runFlow(run({ workflow: graph({ nodes: [node('a', 440, 150)] }) }));
    const drawn = flow.nodes.find((n) => n.id === id)!;
    expect([drawn.initialWidth, drawn.initialHeight]).toEqual([size, size]);
    expect(drawn.handles !== undefined).toBe(handles);
  });

  it.each([
    ['target', 'left', -3, (NODE_SIZE - 6) / 2],
    ['source', 'right', NODE_SIZE - 3, (NODE_SIZE - 6) / 2],
  ] as const)('puts the %s handle centred on the %s side', (type, position, x, y) => {
    const flow = runFlow(run({ workflow: graph({ nodes: [node('a')] }) }));
    const handles = flow.nodes.find((n) => n.id === 'a')!.handles!;
    expect(handles.filter((h) => h.type === type)).toEqual([{ type, position, x, y, width: 6, height: 6 }]);
    expect(RUN_NODE_HANDLES).toContainEqual({ type, position, x, y, width: 6, height: 6 });
  });
});
