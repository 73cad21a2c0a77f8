import { describe, expect, it } from 'vitest';
import { addNode, addSwitch, nodeName, updateNode } from './items';
import { START_ID } from './model';
import { aGraph } from './testing';

const sandbox = (name: string) => ({
  uuid: 'sb-1',
  name,
  owner: 'u9',
  variables: [{ name: 'K', value: 'v' }],
});

describe('addNode', () => {
  it.each([
    ['a fresh name', ['x'], 'greeter', 'greeter'],
    ['a taken name gets a suffix', ['greeter'], 'greeter', 'greeter_2'],
    ['characters the runner refuses become _', [], 'my-sandbox.v2', 'my_sandbox_v2'],
  ])('%s', (_what, ids, name, expected) => {
    const base = aGraph(ids);
    const graph = addNode(base, sandbox(name), { x: 5, y: 6 }, 'new');
    const node = graph.nodes.find((n) => n.id === 'new')!;
    expect(node).toMatchObject({
      name: expected,
      x: 5,
      y: 6,
      src_id: 'sb-1',
      owner: 'u9',
      continueOnFail: false,
    });
    expect(node.variables).toEqual([{ name: 'K', value: 'v' }]);
    expect(graph.edges).toContainEqual(expect.objectContaining({ from: START_ID, to: 'new' }));
  });
});

describe('switches and node settings', () => {
  it('a switch gets no start edge', () => {
    const graph = addSwitch(aGraph([]), { x: 1, y: 2 }, 's1');
    expect(graph.switches).toEqual([{ id: 's1', x: 1, y: 2 }]);
    expect(graph.edges).toEqual([]);
  });

  it.each([[{ continueOnFail: true }], [{ variables: [{ name: 'A', value: '1' }] }], [{ name: 'renamed' }]])(
    'updateNode applies %j',
    (patch) => {
      expect(updateNode(aGraph(['a']), 'a', patch).nodes[0]).toMatchObject(patch);
    },
  );

  it.each([
    ['ok_name1', 'ok_name1'],
    ['a b-c', 'a_b_c'],
  ])('nodeName(%s) = %s', (typed, expected) => expect(nodeName(typed)).toBe(expected));
});
