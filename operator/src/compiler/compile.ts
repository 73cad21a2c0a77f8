// Workflow + Session + Sandboxes → Argo Workflow (and CronWorkflows for periodic schedules).
//
// Mapping (ARCHITECTURE.md): node → DAG task with a container template; edge → `depends` (Argo's
// enhanced depends logic); switch output success/fail → `X.Succeeded` / `(X.Failed || X.Errored)`;
// continueOnFail → the successors also accept `X.Failed || X.Errored` (Argo's CRDs refuse
// `continueOn` beside `depends`, so none is emitted); multi edge → fan-out with `withParam`;
// attempts → retryStrategy.limit; files flow through a per-run volume mounted at /sandflow.
//
// Branch not taken vs skipped. Argo marks Omitted both a node on a switch branch not taken (the
// product ignores it: a join below runs on its other parents) and a node whose parent failed
// unhandled (the product skips its successors too). A successor therefore accepts an Omitted parent
// only together with an expression over the switch inputs above that parent saying its branch was
// not taken (`(P.Omitted && !I.Succeeded)`, see branchNotTaken).
//
// Final phase. Argo derives a DAG's phase from its leaf tasks, and an Omitted leaf inherits the phase
// of the branch above it (Failed wins). A not-taken switch branch or a failure the product tolerates
// could therefore end the Argo workflow Failed (or Succeeded) against the product's rules. So every
// compiled DAG has exactly one leaf, `sf-end` (a zero-length suspend, no pod), depending on every task
// with an expression that is true exactly when the product outcome is COMPLETED:
//   - a task whose failure is handled (continueOnFail, or input of a switch with a fail output)
//     may end in any state;
//   - any other task must have Succeeded, or been Omitted/Skipped (branch not taken or skipped).
// When it holds, sf-end runs and succeeds → Workflow Succeeded. When it does not, some task failed
// unhandled, sf-end is Omitted and, being a direct child of that task, inherits Failed → Workflow
// Failed. The DAG uses failFast: false so the fail branch of a switch is still scheduled.
import type { IWorkflow } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/Workflow';
import type { ICronWorkflow } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/CronWorkflow';
import type { IWorkflowSpec } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/WorkflowSpec';
import type { ITemplate } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/Template';
import type { IDAGTask } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/DAGTask';
import {
  DEFAULTS,
  nodeDependencies,
  sessionOverrideOf,
  validateWorkflow,
  type Dependency,
  type NormalizedEdge,
  type Sandbox,
  type Session,
  type Variable,
  type Workflow,
  type WorkflowNode,
  type WorkflowValidationContext,
} from '@sandflow/crds';
import { LABELS, STEP_ENV, stepTaskName } from '@sandflow/kube';
import { compileSchedule, cronWindow, type CompiledSchedule } from './schedule.js';

export const SHARED_DIR = '/sandflow';
export const SHARED_VOLUME = 'sandflow';
export const END_TASK = 'sf-end';
export const SPLIT_TEMPLATE = 'sf-split';
export const ENTRYPOINT = 'main';

/**
 * On a Session: the UID its steps run as (the owner's UID in the organization) and the GID (the
 * session group's), written by whoever creates the Session; the CRD has no field for them yet and
 * the API keeps both in its database. Without them steps run as the image or runtime decides.
 */
export const RUN_AS_ANNOTATIONS = {
  user: 'sandflow.io/run-as-user',
  group: 'sandflow.io/run-as-group',
} as const;

export interface CompilerOptions {
  /** Image of the helper that splits files for dynamic instances (needs sh, split, cp). */
  helperImage?: string;
  /** Size of the per-run shared volume. */
  sharedVolumeSize?: string;
  storageClassName?: string;
  serviceAccountName?: string;
  /** Registry prefixed to source images without one. */
  defaultRegistry?: string;
}

export interface CompileInput {
  workflow: Workflow;
  session: Session;
  /** Sandboxes referenced by the workflow nodes (matched on metadata.name = node.sandbox). */
  sandboxes: Sandbox[];
  /** The Run being compiled; absent for CronWorkflows. */
  run?: { name: string; uid?: string };
  options?: CompilerOptions;
  /** Passed to validation (sandbox existence and execute permission are always checked). */
  executor?: WorkflowValidationContext['executor'];
}

export class CompileError extends Error {
  constructor(
    message: string,
    readonly issues: { code: string; message: string; nodeId?: string; edgeId?: string }[] = [],
  ) {
    super(message);
    this.name = 'CompileError';
  }
}

/** Argo task name of a node (stepTaskName: `sb-` + the sandbox name with `_` as `-`). */
export function taskName(node: Pick<WorkflowNode, 'name'>): string {
  return stepTaskName(node.name);
}
const splitTaskName = (node: WorkflowNode) => `sf-split-${node.name.replace(/_/g, '-')}`;

function labelValue(v: string | undefined): string | undefined {
  if (!v) return undefined;
  const s = v
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return s || undefined;
}

function mergeVariables(...lists: (Variable[] | undefined)[]): { name: string; value: string }[] {
  const merged = new Map<string, string>();
  for (const list of lists) for (const v of list ?? []) if (v.name) merged.set(v.name, v.value ?? '');
  return [...merged].map(([name, value]) => ({ name, value }));
}

function imageOf(sandbox: Sandbox, options: CompilerOptions): string | undefined {
  if (sandbox.status?.image) return sandbox.status.image;
  if (sandbox.spec.image?.ref) return sandbox.spec.image.ref;
  const src = sandbox.spec.sourceImage;
  if (!src?.image) return undefined;
  const name = `${src.image}:${src.version || 'latest'}`;
  const hasRegistry = /^[^/]+[.:][^/]*\//.test(src.image) || src.image.startsWith('localhost/');
  return options.defaultRegistry && !hasRegistry
    ? `${options.defaultRegistry.replace(/\/$/, '')}/${name}`
    : name;
}

/** Labels linking the Argo objects back to Sandflow (ARCHITECTURE.md conventions). */
export function runLabels(input: Pick<CompileInput, 'workflow' | 'session' | 'run'>): Record<string, string> {
  const { workflow, session, run } = input;
  const meta = session.metadata.labels ?? {};
  const entries: [string, string | undefined][] = [
    [
      LABELS.organization,
      meta[LABELS.organization] ?? session.spec.organization ?? workflow.spec.organization,
    ],
    [LABELS.group, meta[LABELS.group] ?? session.spec.group],
    [LABELS.owner, meta[LABELS.owner] ?? session.spec.owner],
    [LABELS.session, session.metadata.name],
    [LABELS.workflow, workflow.metadata.name],
    [LABELS.run, run?.name],
  ];
  const labels: Record<string, string> = {};
  for (const [k, v] of entries) {
    const value = labelValue(v);
    if (value) labels[k] = value;
  }
  return labels;
}

const ANY_END = ['Succeeded', 'Failed', 'Errored', 'Omitted', 'Skipped'];
const or = (task: string, results: string[]) => `(${results.map((r) => `${task}.${r}`).join(' || ')})`;

/**
 * Omitted is ambiguous in Argo: "branch not taken" (ignored by the successors) or "skipped after an
 * unhandled failure" (skips them too). For each node that can be a branch not taken — one with a
 * switch output into it, or whose ordinary parents all can be — an expression over the switch inputs
 * above it that holds exactly when it is: a node with switch outputs into it when one of their
 * conditions fails; any other when every such node it hangs from is not taken.
 */
function branchNotTaken(
  graph: { nodeById: Map<string, WorkflowNode> },
  deps: Map<string, Dependency[]>,
  order: string[],
): Map<string, string> {
  const frontier = new Map<string, Set<string>>();
  for (const id of order) {
    const list = deps.get(id);
    if (!list) continue;
    const ordinary = list.filter((d) => d.kind === 'single' || d.kind === 'multi');
    if (list.some((d) => d.kind === 'switch')) frontier.set(id, new Set([id]));
    else if (ordinary.length > 0 && ordinary.every((d) => frontier.has(d.from)))
      frontier.set(id, new Set(ordinary.flatMap((d) => [...frontier.get(d.from)!])));
  }
  const conditionFails = (id: string) =>
    deps
      .get(id)!
      .flatMap((d) => {
        if (d.kind !== 'switch') return [];
        const input = taskName(graph.nodeById.get(d.from)!);
        return [d.when === 'success' ? `!${input}.Succeeded` : `!${or(input, ['Failed', 'Errored'])}`];
      })
      .join(' || ');
  const notTaken = new Map<string, string>();
  for (const [id, above] of frontier) {
    const terms = [...above].map((y) => `(${conditionFails(y)})`);
    notTaken.set(id, terms.length === 1 ? terms[0]! : `(${terms.join(' && ')})`);
  }
  return notTaken;
}

/** Compiles the Argo WorkflowSpec shared by the Workflow of a run and the CronWorkflows of a session. */
export function compileWorkflowSpec(input: CompileInput): IWorkflowSpec {
  const { workflow, session, options = {} } = input;
  const byName = new Map(input.sandboxes.map((s) => [s.metadata.name, s]));
  const validation = validateWorkflow(workflow.spec, {
    resolveSandbox: (n) => (n.sandbox ? byName.get(n.sandbox) : undefined),
    executor: input.executor ?? { id: workflow.spec.owner ?? '', groups: [] },
  });
  if (!validation.valid) {
    throw new CompileError(
      `workflow ${workflow.metadata.name ?? workflow.spec.name} is invalid: ${validation.issues.map((i) => i.message).join('; ')}`,
      validation.issues,
    );
  }
  const { graph, order } = validation;
  const deps = nodeDependencies(graph);
  const attempts = session.spec.attempts ?? DEFAULTS.attempts;
  const labels = runLabels(input);

  // A node's failure is "handled" when it continues on fail or feeds a switch with a fail output.
  const handled = new Set<string>();
  for (const n of graph.nodes) if (n.continueOnFail) handled.add(n.id);
  for (const list of deps.values())
    for (const d of list) if (d.kind === 'switch' && d.when === 'fail') handled.add(d.from);

  const notTaken = branchNotTaken(graph, deps, order);

  const fanOut = new Map<string, NormalizedEdge>();
  for (const [id, list] of deps) for (const d of list) if (d.kind === 'multi') fanOut.set(id, d.edge);

  /** Results of `from` that let a successor run. */
  const passed = (node: WorkflowNode): string[] => {
    const r = node.continueOnFail ? ['Succeeded', 'Failed', 'Errored'] : ['Succeeded'];
    if (fanOut.has(node.id)) r.push('Skipped'); // a fan-out over zero items
    return r;
  };

  const templates: ITemplate[] = [];
  const tasks: IDAGTask[] = [];
  const endTerms: string[] = [];
  let needsSplit = false;

  for (const id of order) {
    const node = graph.nodeById.get(id)!;
    const sandbox = byName.get(node.sandbox!)!;
    const name = taskName(node);
    const multi = fanOut.get(id);

    const terms: string[] = [];
    const guard: string[] = [];
    let anyRequired = false;
    for (const d of deps.get(id)! as Dependency[]) {
      if (d.kind === 'start') continue;
      const from = graph.nodeById.get(d.from)!;
      const fromTask = taskName(from);
      if (d.kind === 'switch') {
        anyRequired = true;
        terms.push(d.when === 'success' ? `${fromTask}.Succeeded` : or(fromTask, ['Failed', 'Errored']));
        continue;
      }
      let depTask = fromTask;
      let ok = passed(from);
      if (d.kind === 'multi' && d.edge.instanceInput) {
        // Dynamic instances: a helper splits the upstream file (or folder) and lists the parts.
        needsSplit = true;
        depTask = splitTaskName(node);
        const sourcePath = d.edge.instanceInput.startsWith('/')
          ? d.edge.instanceInput
          : `${SHARED_DIR}/${from.name}/${d.edge.instanceInput}`;
        tasks.push({
          name: depTask,
          template: SPLIT_TEMPLATE,
          depends: or(fromTask, ok),
          arguments: {
            parameters: [
              { name: 'source', value: sourcePath },
              { name: 'target', value: `${SHARED_DIR}/.instances/${node.name}` },
              { name: 'mode', value: d.edge.instanceType ?? 'line' },
              { name: 'per', value: String(d.edge.instanceNumber) },
            ],
          },
        });
        endTerms.push(or(depTask, ['Succeeded', 'Omitted', 'Skipped']));
        ok = ['Succeeded'];
      }
      const branch = notTaken.get(from.id);
      if (branch) {
        // The parent's branch not taken is ignored; asked of the parent itself, because a split
        // helper is Omitted also when the parent ran and failed.
        terms.push(
          `(${[...ok.map((r) => `${depTask}.${r}`), `(${fromTask}.Omitted && ${branch})`].join(' || ')})`,
        );
        guard.push(...ok.map((r) => `${depTask}.${r}`));
      } else {
        anyRequired = true;
        terms.push(or(depTask, ok));
      }
    }
    // Below a switch with every parent possibly omitted: run only if at least one parent ran.
    if (!anyRequired && guard.length > 0) terms.push(`(${guard.join(' || ')})`);

    const task: IDAGTask = { name, template: name };
    if (terms.length > 0) task.depends = terms.join(' && ');
    if (multi) {
      task.withParam = multi.instanceInput
        ? `{{tasks.${splitTaskName(node)}.outputs.result}}`
        : JSON.stringify(Array.from({ length: multi.instanceNumber }, (_, i) => String(i)));
      task.arguments = { parameters: [{ name: 'instance', value: '{{item}}' }] };
    }
    tasks.push(task);
    endTerms.push(or(name, handled.has(id) ? ANY_END : ['Succeeded', 'Omitted', 'Skipped']));

    templates.push(containerTemplate(node, sandbox, session, attempts, multi, options, name));
  }

  tasks.push({ name: END_TASK, template: END_TASK, depends: endTerms.join(' && ') });

  const allTemplates: ITemplate[] = [
    { name: ENTRYPOINT, dag: { failFast: false, tasks } },
    ...templates,
    { name: END_TASK, suspend: { duration: '0' } },
  ];
  if (needsSplit) allTemplates.push(splitTemplate(options, session));

  const spec: IWorkflowSpec = {
    entrypoint: ENTRYPOINT,
    templates: allTemplates,
    podMetadata: { labels },
    volumeClaimTemplates: [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: SHARED_VOLUME },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: options.sharedVolumeSize ?? '1Gi' } },
          ...(options.storageClassName ? { storageClassName: options.storageClassName } : {}),
        },
      },
    ],
  };
  const mountVolumes = mountPointVolumes(input.sandboxes);
  if (mountVolumes.length > 0) spec.volumes = mountVolumes.map((m) => m.volume);
  if (options.serviceAccountName) spec.serviceAccountName = options.serviceAccountName;
  return spec;
}

function mountVolumeName(source: string): string {
  let h = 0;
  for (let i = 0; i < source.length; i++) h = (h * 31 + source.charCodeAt(i)) >>> 0;
  return `mount-${h.toString(36)}`;
}

/** Mount points: an absolute source is a host path, anything else the name of a PersistentVolumeClaim. */
function mountPointVolumes(sandboxes: Sandbox[]) {
  const seen = new Map<string, { name: string; volume: NonNullable<IWorkflowSpec['volumes']>[number] }>();
  for (const s of sandboxes) {
    for (const m of s.spec.mountPoints ?? []) {
      if (seen.has(m.source)) continue;
      const name = mountVolumeName(m.source);
      seen.set(m.source, {
        name,
        volume: m.source.startsWith('/')
          ? { name, hostPath: { path: m.source } }
          : { name, persistentVolumeClaim: { claimName: m.source } },
      });
    }
  }
  return [...seen.values()];
}

/** `securityContext` of the steps of a session, from its run-as annotations. */
export function runAsOf(session: Session): { runAsUser?: number; runAsGroup?: number } {
  const annotations = session.metadata.annotations ?? {};
  const id = (key: string) => {
    const raw = annotations[key];
    if (raw === undefined) return undefined;
    if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2_147_483_647)
      throw new CompileError(
        `session ${session.metadata.name}: annotation ${key} must be a UID/GID, not "${raw}"`,
      );
    return Number(raw);
  };
  const user = id(RUN_AS_ANNOTATIONS.user);
  const group = id(RUN_AS_ANNOTATIONS.group);
  return {
    ...(user !== undefined ? { runAsUser: user } : {}),
    ...(group !== undefined ? { runAsGroup: group } : {}),
  };
}

function containerTemplate(
  node: WorkflowNode,
  sandbox: Sandbox,
  session: Session,
  attempts: number,
  multi: NormalizedEdge | undefined,
  options: CompilerOptions,
  name: string,
): ITemplate {
  const image = imageOf(sandbox, options);
  if (!image) throw new CompileError(`sandbox ${sandbox.spec.name} has no image`);
  const override = sessionOverrideOf(session.spec.resources, node);
  const c = sandbox.spec.constraints ?? {};
  const cpu = override?.cpu ?? c.cpu ?? DEFAULTS.cpu;
  const memory = override?.memory ?? c.memory ?? DEFAULTS.memory;
  const disk = override?.disk ?? c.disk ?? DEFAULTS.disk;
  const sessionVars = sessionOverrideOf(session.spec.variables, node);
  const env = mergeVariables(sandbox.spec.variables, node.variables, sessionVars);
  env.push(
    { name: STEP_ENV.dir, value: SHARED_DIR },
    { name: STEP_ENV.output, value: `${SHARED_DIR}/${node.name}` },
    { name: STEP_ENV.sandbox, value: node.name },
    { name: STEP_ENV.run, value: '{{workflow.name}}' },
  );
  if (multi) {
    env.push({ name: STEP_ENV.instance, value: '{{inputs.parameters.instance}}' });
    if (multi.instanceInput)
      env.push({
        name: STEP_ENV.instanceInput,
        value: `${SHARED_DIR}/.instances/${node.name}/{{inputs.parameters.instance}}`,
      });
  }
  const entrypoint = sandbox.spec.entrypoint;
  const command = /\s/.test(entrypoint.trim()) ? ['/bin/sh', '-c', entrypoint] : [entrypoint];
  const limits: Record<string, string> = { memory: `${memory}Mi`, 'ephemeral-storage': `${disk}Mi` };
  if (sandbox.spec.gpuRequired) limits['nvidia.com/gpu'] = '1';
  const volumeMounts = [{ name: SHARED_VOLUME, mountPath: SHARED_DIR }];
  for (const m of sandbox.spec.mountPoints ?? [])
    volumeMounts.push({ name: mountVolumeName(m.source), mountPath: m.destination });

  const template: ITemplate = {
    name,
    metadata: { labels: { [LABELS.node]: labelValue(node.id) ?? 'node' } },
    container: {
      name: 'main',
      image,
      command,
      env,
      resources: {
        requests: { cpu: `${cpu}m`, memory: `${memory}Mi`, 'ephemeral-storage': `${disk}Mi` },
        limits,
      },
      volumeMounts,
      ...securityContext(session),
    },
    nodeSelector: { 'kubernetes.io/arch': sandbox.spec.architecture === 'arm' ? 'arm64' : 'amd64' },
  };
  if (multi) template.inputs = { parameters: [{ name: 'instance' }] };
  if (attempts > 1) template.retryStrategy = { limit: attempts - 1, retryPolicy: 'Always' };
  return template;
}

function securityContext(session: Session) {
  const runAs = runAsOf(session);
  return Object.keys(runAs).length > 0 ? { securityContext: runAs } : {};
}

function splitTemplate(options: CompilerOptions, session: Session): ITemplate {
  const source = [
    'set -eu',
    'rm -rf "$TARGET" && mkdir -p "$TARGET"',
    'if [ "$MODE" = line ]; then',
    '  if [ -s "$SOURCE" ]; then split -l "$PER" -a 6 "$SOURCE" "$TARGET/part-"; fi',
    'else',
    '  i=0',
    '  for f in "$SOURCE"/*; do',
    '    [ -e "$f" ] || continue',
    '    d="$TARGET/part-$(printf %06d $((i / PER)))"; mkdir -p "$d"; cp -r "$f" "$d/"; i=$((i + 1))',
    '  done',
    'fi',
    "printf '['; sep=''",
    'for p in "$TARGET"/part-*; do [ -e "$p" ] || continue; printf \'%s"%s"\' "$sep" "${p##*/}"; sep=,; done',
    "printf ']\\n'",
  ].join('\n');
  return {
    name: SPLIT_TEMPLATE,
    inputs: { parameters: [{ name: 'source' }, { name: 'target' }, { name: 'mode' }, { name: 'per' }] },
    script: {
      name: 'main',
      image: options.helperImage ?? 'busybox:1.36',
      command: ['sh'],
      source,
      env: [
        { name: 'SOURCE', value: '{{inputs.parameters.source}}' },
        { name: 'TARGET', value: '{{inputs.parameters.target}}' },
        { name: 'MODE', value: '{{inputs.parameters.mode}}' },
        { name: 'PER', value: '{{inputs.parameters.per}}' },
      ],
      resources: { requests: { cpu: '50m', memory: '32Mi' } },
      volumeMounts: [{ name: SHARED_VOLUME, mountPath: SHARED_DIR }],
      // The parts it writes into the run's folder belong to the session's user, like the steps' files.
      ...securityContext(session),
    },
  };
}

/** The Argo Workflow executing one Run, owned by it. */
export function compileRun(input: CompileInput & { run: { name: string; uid?: string } }): IWorkflow {
  const spec = compileWorkflowSpec(input);
  const metadata: IWorkflow['metadata'] = {
    name: input.run.name,
    labels: runLabels(input),
    annotations: {
      'sandflow.io/workflow-name': input.workflow.spec.name,
      'sandflow.io/workflow-version': input.workflow.spec.version ?? DEFAULTS.version,
    },
  };
  if (input.session.metadata.namespace) metadata.namespace = input.session.metadata.namespace;
  if (input.run.uid) {
    metadata.ownerReferences = [
      {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Run',
        name: input.run.name,
        uid: input.run.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
  }
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata, spec };
}

export interface SessionCompilation {
  /** One CronWorkflow per periodic schedule. */
  cronWorkflows: ICronWorkflow[];
  /** One-off run times (ISO); the operator creates a Run at each. */
  oneOff: string[];
  schedules: CompiledSchedule[];
}

/** Compiles a session's schedules: periodic ones into CronWorkflows wrapping the same spec. */
export function compileSession(input: Omit<CompileInput, 'run'>, now: Date = new Date()): SessionCompilation {
  const schedules = (input.session.spec.schedules ?? []).map(compileSchedule);
  const oneOff = schedules.flatMap((s) => (s.kind === 'once' ? [s.at] : []));
  const periodic = schedules.filter(
    (s): s is Extract<CompiledSchedule, { kind: 'cron' }> => s.kind === 'cron',
  );
  if (periodic.length === 0) return { cronWorkflows: [], oneOff, schedules };
  const workflowSpec = compileWorkflowSpec(input);
  const labels = runLabels(input);
  const base = (input.session.metadata.name ?? 'session').slice(0, 44);
  const cronWorkflows = periodic.map((s, i): ICronWorkflow => {
    const metadata: ICronWorkflow['metadata'] = {
      name: `${base}-${i}`,
      labels,
      annotations: {
        'sandflow.io/schedule-start': s.start,
        ...(s.end ? { 'sandflow.io/schedule-end': s.end } : {}),
      },
    };
    if (input.session.metadata.namespace) metadata.namespace = input.session.metadata.namespace;
    if (input.session.metadata.uid) {
      metadata.ownerReferences = [
        {
          apiVersion: 'sandflow.io/v1alpha1',
          kind: 'Session',
          name: input.session.metadata.name ?? '',
          uid: input.session.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ];
    }
    return {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'CronWorkflow',
      metadata,
      spec: {
        schedules: [s.cron],
        timezone: 'UTC',
        concurrencyPolicy: 'Allow',
        suspend: Boolean(input.session.spec.suspend) || cronWindow(s, now) !== 'active',
        ...(s.when ? { when: s.when } : {}),
        workflowMetadata: { labels },
        workflowSpec,
      },
    };
  });
  return { cronWorkflows, oneOff, schedules };
}
