import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Sandbox, Workflow, WorkflowSpec } from '@sandflow/crds';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import {
  checkSave,
  checkVariables,
  graphOf,
  graphSpec,
  sandboxEntriesOf,
  validityOf,
  type GraphBody,
} from './workflows-graph.js';

const SAMPLE = fileURLToPath(new URL('../../../config/samples/workflow.yaml', import.meta.url));
const sample = () => YAML.parse(fs.readFileSync(SAMPLE, 'utf8')) as Workflow;
const noOwner = () => undefined;

/** A sandbox fixture: the resolver knows these ids. */
const sandboxNamed = (id: string) =>
  ({
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Sandbox',
    metadata: { name: id },
    spec: { name: id },
  }) as Sandbox;
const known = (ids: string[]) => (id: string) => (ids.includes(id) ? sandboxNamed(id) : undefined);

describe('the saved sandboxes of the sample workflow', () => {
  const entries = sandboxEntriesOf(sample().spec, noOwner);
  const byName = Object.fromEntries(entries.map((e) => [e.sandbox_name, e]));

  it.each([
    ['ingest', [{ destination: 'n-process', splitter: true, file: 'items.txt', option: 'line' }], []],
    ['process', [{ destination: 'n-merge', splitter: false, file: '', option: '' }], []],
    [
      'merge',
      [],
      [
        { destination: 'n-publish', condition: 'success' },
        { destination: 'n-alert', condition: 'fail' },
      ],
    ],
    ['publish', [{ destination: 'n-cleanup', splitter: false, file: '', option: '' }], []],
    ['cleanup', [], []],
  ])('%s links to %j with conditions %j', (name, linked, conditions) => {
    expect(byName[name]).toMatchObject({ linked_to: linked, conditions });
  });

  it('carries the node id, the stored sandbox id, the owner and continueOnFail', () => {
    expect(byName.cleanup).toMatchObject({
      sandbox_id: 'n-cleanup',
      sandbox_db: '6f1c2a0e-1b7d-4c55-9a3e-0d8b7f2c1a02',
      owner: 'alice',
      continue_on_fail: true,
      variables: [{ name: 'MODE', value: 'cleanup' }],
    });
  });
});

describe('graph ⇄ spec', () => {
  it('gives back the same spec for the graph it serves (sample workflow)', () => {
    const spec = sample().spec;
    const served = graphOf(spec, noOwner);
    const back = graphSpec(served, spec, 'sf-demo', (id) => spec.nodes!.find((n) => n.sandbox === id)?.owner);
    expect(back).toEqual({ nodes: spec.nodes, switches: spec.switches, edges: spec.edges });
  });

  it('serves a graph without positions as null and stores none for null', () => {
    const spec: WorkflowSpec = {
      name: 'x',
      nodes: [{ id: 'a', name: 'a', sandbox: 's' }],
      switches: [{ id: 'w' }],
      edges: [{ from: 'a', to: 'w' }],
    };
    const served = graphOf(spec, () => 'owner-of-s');
    expect(served.nodes[0]).toEqual({
      id: 'a',
      name: 'a',
      x: null,
      y: null,
      src_id: 's',
      owner: 'owner-of-s',
      continueOnFail: false,
      variables: [],
    });
    expect(served.switches).toEqual([{ id: 'w', x: null, y: null }]);
    // An edge without id or type: the id the validator gives it, the type its ends make it.
    expect(served.edges).toEqual([{ id: 'edge-0', from: 'a', to: 'w', type: 'switchInput' }]);
    const back = graphSpec(served, spec, 'sf-x', noOwner);
    expect(back.nodes).toEqual([{ id: 'a', name: 'a', sandbox: 's' }]);
    expect(back.switches).toEqual([{ id: 'w' }]);
  });

  it.each([
    ['continueOnFail false', { continueOnFail: false }, {}],
    ['continueOnFail true', { continueOnFail: true }, { continueOnFail: true }],
    ['no variables', { variables: [] }, {}],
    ['an empty row of the variables form', { variables: [{ name: '', value: '' }] }, {}],
    ['positions', { x: 0, y: -12.5 }, { x: 0, y: -12.5 }],
    ["the client's owner", { owner: 'someone-else' }, { owner: 'sandbox-owner' }],
  ])('stores a node with %s as only what it means', (_, extra, stored) => {
    const body: GraphBody = { nodes: [{ id: 'a', name: 'a', src_id: 's', ...extra }] };
    expect(graphSpec(body, undefined, 'sf-x', () => 'sandbox-owner').nodes).toEqual([
      { id: 'a', name: 'a', sandbox: 's', owner: 'sandbox-owner', ...stored },
    ]);
  });

  it("keeps a kubectl node's namespace only when it is the workflow's and the sandbox is the same", () => {
    const previous: WorkflowSpec = {
      name: 'x',
      nodes: [
        { id: 'a', name: 'a', sandbox: 's', sandboxNamespace: 'sf-x' },
        { id: 'b', name: 'b', sandbox: 's', sandboxNamespace: 'sf-x' },
      ],
    };
    const body: GraphBody = {
      nodes: [
        { id: 'a', name: 'a', src_id: 's' },
        { id: 'b', name: 'b', src_id: 't' },
      ],
    };
    expect(graphSpec(body, previous, 'sf-x', noOwner).nodes).toEqual([
      { id: 'a', name: 'a', sandbox: 's', sandboxNamespace: 'sf-x' },
      { id: 'b', name: 'b', sandbox: 't' },
    ]);
  });
});

describe('checkSave', () => {
  const spec = (extra: Partial<WorkflowSpec> = {}): WorkflowSpec => ({
    name: 'w',
    nodes: [
      { id: 'a', name: 'a', sandbox: 's1' },
      { id: 'b', name: 'b', sandbox: 's2' },
    ],
    edges: [{ id: 'ab', from: 'a', to: 'b', type: 'single' }],
    ...extra,
  });
  const resolve = known(['s1', 's2']);

  it.each([
    ['an unknown sandbox', { nodes: [{ id: 'a', name: 'a', sandbox: 'zz' }] }, 'nodes.a: unknown sandbox zz'],
    ['an empty name', { name: ' ' }, 'name: Please, enter a valid workflow name'],
    ['a switch with a node id', { switches: [{ id: 'a' }] }, 'nodes.a: two items of the graph have this id'],
    ['an id "start"', { switches: [{ id: 'start' }] }, 'nodes.start: two items of the graph have this id'],
    [
      'a cycle through three edges',
      {
        edges: [
          { id: 'ab', from: 'a', to: 'b' },
          { id: 'ba', from: 'b', to: 'a' },
        ],
      },
      'edges.ba: The current edge would create a cycle in the workflow',
    ],
  ])('refuses %s', (_, extra, message) => {
    expect(() => checkSave(spec(extra), resolve)).toThrow(message);
  });

  it.each([
    ['a valid graph', {}],
    // Saved and reported by the operator as invalid, not refused: the editor may save a switch it is still wiring.
    ['a switch without input', { switches: [{ id: 'w' }] }],
    [
      'two multi edges into one node',
      {
        nodes: [
          { id: 'a', name: 'a', sandbox: 's1' },
          { id: 'b', name: 'b', sandbox: 's2' },
          { id: 'c', name: 'c', sandbox: 's2' },
        ],
        edges: [
          { id: 'ac', from: 'a', to: 'c', type: 'multi' as const },
          { id: 'bc', from: 'b', to: 'c', type: 'multi' as const },
        ],
      },
    ],
  ])('saves %s', (_, extra) => {
    expect(() => checkSave(spec(extra), resolve)).not.toThrow();
  });
});

describe('checkVariables', () => {
  it.each([
    [[{ name: '', value: 'x' }], "variables.0.name: Can't save with empty values."],
    [
      [
        { name: 'A', value: '1' },
        { name: 'B', value: '' },
      ],
      "variables.1.value: Can't save with empty values.",
    ],
  ])('refuses %j', (variables, message) => {
    expect(() => checkVariables(variables)).toThrow(message);
  });
});

describe('validityOf', () => {
  const wf = (generation: number, status?: Workflow['status']): Workflow => ({
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'w', generation },
    spec: { name: 'w' },
    ...(status ? { status } : {}),
  });
  const invalid = {
    valid: false,
    observedGeneration: 2,
    errors: [
      { code: 'cycle', message: 'The current edge would create a cycle in the workflow', edgeId: 'e1' },
    ],
    conditions: [
      {
        type: 'Valid',
        status: 'False' as const,
        message: 'The current edge would create a cycle in the workflow',
      },
    ],
  };

  it.each([
    ['no status yet', wf(1), null],
    ['a status of an older generation', wf(3, invalid), null],
    ['the current generation', wf(2, invalid), false],
    ['a status without observedGeneration', wf(5, { valid: true }), true],
  ])('%s → valid %s', (_, workflow, valid) => {
    expect(validityOf(workflow).valid).toBe(valid);
  });

  it('gives the condition message and the errors of the current status', () => {
    expect(validityOf(wf(2, invalid))).toEqual({
      valid: false,
      message: 'The current edge would create a cycle in the workflow',
      errors: [
        {
          code: 'cycle',
          message: 'The current edge would create a cycle in the workflow',
          node_id: '',
          edge_id: 'e1',
        },
      ],
    });
  });
});
