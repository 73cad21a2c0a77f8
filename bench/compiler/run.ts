// Benchmark: validate + compile a 1000-node, 3000-edge workflow. Run: npx tsx bench/compiler/run.ts
import type { Sandbox, WorkflowSpec } from '@sandflow/crds';
import { validateWorkflow } from '@sandflow/crds';
import { compileRun } from '@sandflow/operator';

const NODES = 1000;
const EDGES = 3000;
const ITERATIONS = 30;

// Deterministic pseudo-random generator so every run measures the same graph.
let state = 42;
const rand = () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;

const nodes = Array.from({ length: NODES }, (_, i) => ({
  id: `n${i}`,
  name: `sandbox_${i}`,
  sandbox: `sb-${i % 50}`,
}));
const edges: NonNullable<WorkflowSpec['edges']> = [];
const seen = new Set<string>();
const switches: NonNullable<WorkflowSpec['switches']> = [];
// 50 switches with success and fail outputs (3 edges each), the rest single/multi edges forward.
for (let s = 0; s < 50; s++) {
  const i = s * 19;
  switches.push({ id: `s${s}` });
  edges.push({ id: `s${s}-in`, from: `n${i}`, to: `s${s}` });
  edges.push({ id: `s${s}-ok`, from: `s${s}`, to: `n${i + 1}`, switchCondition: 'success' });
  edges.push({ id: `s${s}-ko`, from: `s${s}`, to: `n${i + 2}`, switchCondition: 'fail' });
}
const multiInto = new Set<string>();
while (edges.length < EDGES) {
  const i = Math.floor(rand() * (NODES - 1));
  const j = i + 1 + Math.floor(rand() * Math.min(40, NODES - 1 - i));
  const key = `${i}>${j}`;
  if (seen.has(key)) continue;
  seen.add(key);
  const multi = rand() < 0.02 && !multiInto.has(`n${j}`);
  if (multi) multiInto.add(`n${j}`);
  edges.push({
    id: `e${edges.length}`,
    from: `n${i}`,
    to: `n${j}`,
    ...(multi ? { type: 'multi' as const, instanceType: 'line' as const, instanceInput: 'items.txt' } : {}),
  });
}

const spec: WorkflowSpec = { name: 'bench', owner: 'u1', nodes, switches, edges };
const sandboxes: Sandbox[] = Array.from({ length: 50 }, (_, i) => ({
  apiVersion: 'sandflow.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: `sb-${i}` },
  spec: {
    name: `s${i}`,
    entrypoint: '/run.sh',
    owner: 'u1',
    sourceImage: { image: 'alpine', version: '3.20' },
  },
}));
const workflow = {
  apiVersion: 'sandflow.io/v1alpha1' as const,
  kind: 'Workflow' as const,
  metadata: { name: 'wf' },
  spec,
};
const session = {
  apiVersion: 'sandflow.io/v1alpha1' as const,
  kind: 'Session' as const,
  metadata: { name: 'sess', namespace: 'sf-bench-g' },
  spec: { name: 's', workflow: 'wf', attempts: 2 },
};

const byName = new Map(sandboxes.map((s) => [s.metadata.name, s]));
const times: number[] = [];
for (let k = 0; k < ITERATIONS + 5; k++) {
  const t0 = performance.now();
  const v = validateWorkflow(spec, {
    resolveSandbox: (n) => byName.get(n.sandbox ?? ''),
    executor: { id: 'u1' },
  });
  if (!v.valid) throw new Error(v.issues.map((i) => i.message).join('; '));
  const argo = compileRun({ workflow, session, sandboxes, run: { name: `run-${k}` } });
  const t1 = performance.now();
  if (argo.spec.templates!.length < NODES) throw new Error('bad compile');
  if (k >= 5) times.push(t1 - t0); // first 5 are warm-up
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)]!;
// The compiled object must stay well under the API server's request limit (3 MiB, etcd 1.5 MiB).
const last = compileRun({ workflow, session, sandboxes, run: { name: 'run-size' } });
const tasks = last.spec.templates!.find((t) => t.dag)!.dag!.tasks;
const longest = Math.max(...tasks.filter((t) => t.name !== 'sf-end').map((t) => t.depends?.length ?? 0));
console.log(
  `compiler: ${NODES} nodes, ${edges.length} edges, validate+compile median ${median.toFixed(1)} ms ` +
    `(min ${times[0]!.toFixed(1)}, max ${times[times.length - 1]!.toFixed(1)}, n=${times.length}); ` +
    `Workflow ${(JSON.stringify(last).length / 1024).toFixed(0)} KiB, longest task depends ${longest} chars`,
);
