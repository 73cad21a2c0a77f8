import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateWorkflow, WORKFLOW_MESSAGES } from '@sandflow/crds';
import { assertValidArgoWorkflow } from './argo-schema.js';
import { CompileError, compileRun, END_TASK, taskName } from './compile.js';
import { sandbox, session, workflow } from './fixtures.js';
import { dependsTasks, runDag } from './testing/argo-dag.js';
import { dagArb, type Graph } from './testing/graphs.js';
import { productRun } from './testing/product.js';

// CI runs a fixed seed so a result is reproducible; explore with PROPERTY_SEED=<n>
// (or PROPERTY_SEED=random) and PROPERTY_RUNS=<n>. fast-check names the seed and the shrunk
// counterexample (graph, continue-on-fail nodes, failing nodes) when a property fails; a random seed
// is also printed up front so a run that dies another way can be replayed.
const seedEnv = process.env.PROPERTY_SEED;
const seed =
  seedEnv === 'random' ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(seedEnv ?? 20261122);
if (seedEnv === 'random') console.log(`compiler properties: PROPERTY_SEED=${seed}`);
fc.configureGlobal({ seed });
const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);

/**
 * Counterexamples found by earlier random runs, always tried first. A fail output of a switch into
 * a node whose other parent was Omitted after a failure: Argo's Omitted read as "branch not taken"
 * ran the node (and the chain below it) that the product skips.
 */
const REGRESSIONS: [{ graph: Graph; cof: string[] }, boolean[]][] = [
  [
    {
      graph: {
        nodes: ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6'].map((x) => ({
          id: x,
          name: x,
          sandbox: `sb-${x}`,
        })),
        switches: [{ id: 's0' }, { id: 's1' }, { id: 's5' }],
        edges: [
          { id: 'e0', from: 'n1', to: 'n3', type: 'multi', instanceType: 'line', instanceInput: 'out.txt' },
          { id: 'e1', from: 'n3', to: 'n4', type: 'multi', instanceType: 'line', instanceInput: 'out.txt' },
          { id: 'e2', from: 'n4', to: 'n5', type: 'multi', instanceType: 'line', instanceInput: 'out.txt' },
          { id: 's0-in', from: 'n0', to: 's0' },
          { id: 's0-o1', from: 's0', to: 'n1' },
          { id: 's1-in', from: 'n1', to: 's1' },
          { id: 's1-o1', from: 's1', to: 'n2' },
          { id: 's1-o2', from: 's1', to: 'n4' },
          { id: 's5-in', from: 'n5', to: 's5' },
          { id: 's5-o1', from: 's5', to: 'n6' },
        ],
      },
      cof: [],
    },
    [false, true, false, false, false, false, true, false, false, false, false, false, false, false],
  ],
];

function compileGraph(graph: Graph, cof: string[] = []) {
  const wf = workflow({
    ...graph,
    nodes: graph.nodes!.map((nd) => ({ ...nd, continueOnFail: cof.includes(nd.id) })),
  });
  return compileRun({
    workflow: wf,
    session: session(),
    sandboxes: graph.nodes!.map((nd) => sandbox(nd.name)),
    run: { name: 'r' },
  });
}

/** Expected dependencies of each node: sources of incoming edges, switches resolved to their input. */
function incomingSources(graph: Graph): Map<string, Set<string>> {
  const switchInput = new Map<string, string>();
  for (const e of graph.edges ?? []) if (e.to.startsWith('s')) switchInput.set(e.to, e.from);
  const m = new Map(graph.nodes!.map((nd) => [nd.id, new Set<string>()]));
  for (const e of graph.edges ?? []) {
    if (!m.has(e.to)) continue;
    m.get(e.to)!.add(switchInput.get(e.from) ?? e.from);
  }
  return m;
}

/** Every node above each node. */
function ancestors(graph: Graph): Map<string, Set<string>> {
  const direct = incomingSources(graph);
  const all = new Map<string, Set<string>>();
  const visit = (id: string): Set<string> => {
    let found = all.get(id);
    if (found) return found;
    found = new Set();
    for (const p of direct.get(id)!) for (const a of [p, ...visit(p)]) found.add(a);
    all.set(id, found);
    return found;
  };
  for (const nd of graph.nodes!) visit(nd.id);
  return all;
}

describe('compiler properties', () => {
  it('random valid DAGs compile: every node once, dependencies = incoming edges, schema-valid', () => {
    fc.assert(
      fc.property(dagArb, ({ graph, cof }) => {
        const argo = compileGraph(graph, cof);
        assertValidArgoWorkflow(argo);
        const tasks = argo.spec.templates!.find((t) => t.name === 'main')!.dag!.tasks;
        const names = tasks.map((t) => t.name);
        expect(new Set(names).size).toBe(names.length);
        const expected = incomingSources(graph);
        const above = ancestors(graph);
        const splitSource = new Map(
          tasks
            .filter((t) => t.name.startsWith('sf-split-'))
            .map((t) => [t.name, dependsTasks(t.depends)[0]!]),
        );
        for (const nd of graph.nodes!) {
          const own = tasks.filter((t) => t.name === taskName(nd));
          expect(own).toHaveLength(1);
          const deps = new Set(
            dependsTasks(own[0]!.depends).map((d) => (splitSource.get(d) ?? d).replace(/^sb-/, '')),
          );
          // every incoming edge, plus switch inputs further up that tell a branch not taken
          for (const p of expected.get(nd.id)!) expect(deps).toContain(p);
          for (const d of deps) expect(above.get(nd.id)).toContain(d);
        }
        // Argo's CRD rule: `continueOn` cannot be used with `depends` (continue-on-fail is in depends)
        for (const t of tasks) expect(t.continueOn).toBeUndefined();
        // the single leaf waits for every task
        expect(new Set(dependsTasks(tasks.find((t) => t.name === END_TASK)!.depends))).toEqual(
          new Set(names.filter((x) => x !== END_TASK)),
        );
      }),
      { numRuns: 200 },
    );
  });

  it(
    'random DAGs with random failures: Argo phase equals the product outcome',
    () => {
      fc.assert(
        fc.property(
          dagArb,
          fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
          ({ graph, cof }, failing) => {
            const argo = compileGraph(graph, cof);
            const tasks = argo.spec.templates!.find((t) => t.name === 'main')!.dag!.tasks;
            const fails = new Set(graph.nodes!.filter((_, i) => failing[i]).map((nd) => nd.id));
            const sim = runDag(tasks, (t) => (fails.has(t.replace(/^sb-/, '')) ? 'Failed' : 'Succeeded'));
            const product = productRun(graph, new Set(cof), fails);
            expect(sim.phase === 'Succeeded' ? 'COMPLETED' : 'ERROR').toBe(product.outcome);
            const ran = graph.nodes!.filter((nd) =>
              ['Succeeded', 'Failed'].includes(sim.phases.get(taskName(nd))!),
            );
            expect(ran.map((nd) => nd.id)).toEqual(product.ran);
          },
        ),
        { numRuns: RUNS, examples: REGRESSIONS },
      );
    },
    RUNS * 10,
  );

  const reject = (graph: Graph, message: string) => {
    expect(validateWorkflow({ name: 'wf', ...graph }).issues.map((i) => i.message)).toContain(message);
    expect(() => compileGraph(graph)).toThrow(CompileError);
    expect(() => compileGraph(graph)).toThrow(message);
  };

  it('random invalid graphs are rejected with the right message', () => {
    fc.assert(
      fc.property(dagArb, fc.nat(), fc.integer({ min: 0, max: 3 }), ({ graph }, pick, kind) => {
        const nodes = graph.nodes!;
        const edges = [...(graph.edges ?? [])];
        const a = nodes[pick % nodes.length]!;
        if (kind === 0)
          reject(
            { ...graph, edges: [...edges, { id: 'bad', from: a.id, to: a.id }] },
            WORKFLOW_MESSAGES.sameSourceDestination,
          );
        if (kind === 1) {
          // an edge back to an ancestor closes a cycle
          const forward = edges.find((e) => e.type === 'single' || e.type === 'multi');
          fc.pre(forward !== undefined);
          reject(
            { ...graph, edges: [...edges, { id: 'back', from: forward!.to, to: forward!.from }] },
            WORKFLOW_MESSAGES.cycle,
          );
        }
        if (kind === 2) {
          fc.pre(nodes.length > 1);
          const b = nodes[(pick + 1) % nodes.length]!;
          reject(
            { ...graph, nodes: nodes.map((nd) => (nd.id === b.id ? { ...nd, name: a.name } : nd)) },
            WORKFLOW_MESSAGES.duplicateSandbox,
          );
        }
        if (kind === 3)
          reject(
            {
              ...graph,
              nodes: nodes.map((nd) =>
                nd.id === a.id ? { ...nd, variables: [{ name: 'K', value: '' }] } : nd,
              ),
            },
            WORKFLOW_MESSAGES.emptyVariables,
          );
      }),
      { numRuns: 200 },
    );
    expect(() =>
      compileRun({
        workflow: workflow({ name: ' ', nodes: [{ id: 'a', name: 'a', sandbox: 'sb-a' }] }),
        session: session(),
        sandboxes: [sandbox('a')],
        run: { name: 'r' },
      }),
    ).toThrow(WORKFLOW_MESSAGES.emptyName);
  });
});
