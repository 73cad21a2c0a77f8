// A run's step logs and output files, read only through the generated Argo client (@sandflow/kube
// argo-client): argo-server on a cluster, the local runner's subset of it in embedded mode. The
// caller must be able to see the Run (the rule of GET /run/:uuid); anything else is a 404.
import type { Run } from '@sandflow/crds';
import {
  ArgoServerError,
  createArgoClient,
  podNameOf,
  stepTaskName,
  type ArgoApiNode,
  type ArgoApiWorkflow,
  type ArgoClient,
  type ArgoServer,
  type ArtifactStream,
} from '@sandflow/kube';
import type { Knex } from 'knex';
import { badGateway, notFound, unavailable } from '../errors.js';
import { accessOf, viewerOf, type Resources } from '../resources/index.js';
import type { Caller } from './callers.js';
import { runVariablesOf, type RunVariables } from './run-variables.js';
import { organizationScope, syncedLayer } from './sessions-scope.js';

/** The most files GET /file/:uuid lists (the operator mirrors as many into the Run). */
const MAX_FILES = 1000;
/** Size look-ups in flight at once for one list. */
const SIZE_LOOKUPS = 8;
const FINAL = new Set(['Succeeded', 'Failed', 'Error', 'Skipped', 'Omitted']);

export interface RunFile {
  name: string;
  sandbox: string;
  size: number;
  creation_time: string;
  path: string;
}

/** One step execution: where argo-server finds its log and files. */
export interface StepRef {
  /** The cluster manager the run was placed on (whose argo-server has the log). */
  clusterManager?: string;
  namespace: string;
  workflow: string;
  node: ArgoApiNode;
  podName: string;
  running: boolean;
}

/** A task's latest Pod: itself, or the last attempt under a Retry node. */
function podOf(node: ArgoApiNode | undefined, nodes: Record<string, ArgoApiNode>): ArgoApiNode | undefined {
  if (!node) return undefined;
  if (node.type === 'Pod') return node;
  if (node.type !== 'Retry') return undefined;
  const attempts = (node.children ?? [])
    .map((c) => nodes[c])
    .filter((c) => c?.name.startsWith(`${node.name}(`));
  return podOf(attempts.at(-1), nodes);
}

/**
 * The Pod node of a sandbox (`name` is the sandbox's) or of one of its dynamic instances
 * (`<sandbox>(<i>)`, the i-th child of its TaskGroup, as the Run's sub_sandbox lists them).
 */
export function stepNodeOf(wf: ArgoApiWorkflow, sandbox: string, name: string): ArgoApiNode | undefined {
  const nodes = (wf.status?.nodes ?? {}) as Record<string, ArgoApiNode>;
  const taskName = `${wf.metadata.name}.${stepTaskName(sandbox)}`;
  const task = Object.values(nodes).find((n) => n.name === taskName);
  if (name === sandbox) return podOf(task, nodes);
  const index = name.startsWith(`${sandbox}(`)
    ? /^\((\d+)\)$/.exec(name.slice(sandbox.length))?.[1]
    : undefined;
  if (!task || task.type !== 'TaskGroup' || index === undefined) return undefined;
  const instances = (task.children ?? [])
    .map((c) => nodes[c])
    .filter((c) => c?.name.startsWith(`${task.name}(`));
  return podOf(instances[Number(index)], nodes);
}

export function createRunFileService(deps: {
  db: Knex;
  resources: Resources | null;
  argo: ArgoServer | undefined;
  /** The argo-server of an agent's cluster (undefined: the cluster manager is not an agent). */
  agentArgo?: ((clusterManager: string) => ArgoServer | undefined) | undefined;
}) {
  const client: ArgoClient | null = deps.argo ? createArgoClient(deps.argo) : null;
  const agentClients = new Map<string, ArgoClient>();
  /** The run's argo-server: its agent's when it was placed on one, else the platform's. */
  const argo = (run?: Pick<Run, 'status'>) => {
    const cm = run?.status?.clusterManager;
    const remote = cm ? deps.agentArgo?.(cm) : undefined;
    if (cm && remote) {
      let c = agentClients.get(cm);
      if (!c) agentClients.set(cm, (c = createArgoClient(remote)));
      return c;
    }
    if (!client)
      throw unavailable('argo_unavailable', 'Logs and files need argo-server, and none is configured.');
    return client;
  };
  const failing = (what: string) => (error: unknown) => {
    if (error instanceof ArgoServerError || error instanceof TypeError)
      throw badGateway('argo_failed', `argo-server could not give the ${what}.`, error);
    throw error;
  };

  /** A run of the caller's organization they may see (as GET /run/:uuid decides); else a 404. */
  async function reachRun(caller: Caller, id: string): Promise<Run> {
    return (await reach(caller, id)).run;
  }

  /** reachRun, with the run's session and the resource layer it was found in. */
  async function reach(caller: Caller, id: string) {
    const layer = await syncedLayer(deps.resources);
    const scope = await organizationScope(deps.db, layer, caller);
    const run = scope
      ? [...scope.byNamespace.keys()].map((ns) => layer.runs.get(ns, id)).find(Boolean)
      : undefined;
    if (!scope || !run) throw notFound('Run');
    const subject = layer.runs.kind.access(run);
    const session = layer.sessions.get(run.metadata.namespace!, run.spec.session);
    const sessionOwner = session ? layer.sessions.kind.access(session).owner : undefined;
    if (sessionOwner && sessionOwner === caller.userId) return { run, session, layer };
    const viewer = await viewerOf(deps.db, caller, scope.organizationId, [subject.owner]);
    if (!accessOf(viewer, subject).view) throw notFound('Run');
    return { run, session, layer };
  }

  async function workflowOf(run: Run) {
    const name = run.status?.argoWorkflow;
    if (!name) return null;
    return argo(run).workflow(run.metadata.namespace!, name).catch(failing('workflow'));
  }

  const placed = (ref: StepRef) =>
    ref.clusterManager ? { status: { clusterManager: ref.clusterManager } } : undefined;

  /** The graph node a URL names: by id (sandbox_statuses' id), else by name. */
  const sandboxOf = (run: Run, sandboxId: string) => {
    const nodes = run.status?.workflow?.nodes ?? [];
    return nodes.find((n) => n.id === sandboxId) ?? nodes.find((n) => n.name === sandboxId);
  };

  async function step(caller: Caller, runId: string, sandboxId: string, name: string): Promise<StepRef> {
    const run = await reachRun(caller, runId);
    const sandbox = sandboxOf(run, sandboxId);
    const wf = sandbox ? await workflowOf(run) : null;
    const node = wf && sandbox ? stepNodeOf(wf, sandbox.name, name) : undefined;
    if (!wf || !node) throw notFound(`Log of ${name}`);
    return {
      ...(run.status?.clusterManager ? { clusterManager: run.status.clusterManager } : {}),
      namespace: run.metadata.namespace!,
      workflow: wf.metadata.name!,
      node,
      podName: podNameOf(wf, node),
      running: !FINAL.has(node.phase ?? ''),
    };
  }

  return {
    step,

    /** GET /file/:uuid: the output files of the run's steps (not their logs), oldest step first. */
    /**
     * GET /run/:uuid/variables: the variables each sandbox's step ran with, from the run's Argo
     * Workflow (its latest, after a restart), each with the layer holding that value now.
     */
    async variables(caller: Caller, runId: string): Promise<RunVariables> {
      const { run, session, layer } = await reach(caller, runId);
      const workflow = await workflowOf(run);
      const wfNamespace = session?.spec.workflowNamespace ?? run.metadata.namespace!;
      return runVariablesOf({
        run,
        workflow,
        session,
        sandboxOf: (node) =>
          node.sandbox ? layer.sandboxes.get(node.sandboxNamespace ?? wfNamespace, node.sandbox) : undefined,
      });
    },

    async list(caller: Caller, runId: string): Promise<RunFile[]> {
      const run = await reachRun(caller, runId);
      const wf = await workflowOf(run);
      if (!wf) return [];
      const sandboxes = new Map((run.status?.workflow?.nodes ?? []).map((n) => [stepTaskName(n.name), n]));
      const nodes = Object.values((wf.status?.nodes ?? {}) as Record<string, ArgoApiNode>)
        .filter((n) => n.type === 'Pod' && n.finishedAt && n.templateName && sandboxes.has(n.templateName))
        .sort((a, b) => (a.finishedAt ?? '').localeCompare(b.finishedAt ?? ''));
      const found: (RunFile & { node: string })[] = [];
      for (const n of nodes)
        for (const a of n.outputs?.artifacts ?? []) {
          if (a.name === 'main-logs' || found.length >= MAX_FILES) continue;
          found.push({
            node: n.id,
            name: a.name,
            sandbox: sandboxes.get(n.templateName!)!.name,
            size: 0,
            creation_time: n.finishedAt!,
            path: a.path ?? a.s3?.key ?? a.name,
          });
        }
      // argo-server's node status carries no sizes: the artifact's Content-Length tells, body unread.
      let next = 0;
      const namespace = run.metadata.namespace!;
      const lookup = async () => {
        for (let i = next++; i < found.length; i = next++) {
          const file = found[i]!;
          const stream = await argo(run)
            .artifact(namespace, wf.metadata.name!, file.node, file.name)
            .catch(() => null);
          file.size = stream?.size ?? 0;
          await stream?.body.cancel();
        }
      };
      await Promise.all(Array.from({ length: SIZE_LOOKUPS }, lookup));
      return found.map(({ node: _node, ...file }) => file);
    },

    /** GET /file/:run/:sandboxId/:sandbox/:filename: one output file of a sandbox (or instance). */
    async file(
      caller: Caller,
      runId: string,
      sandboxId: string,
      sandbox: string,
      filename: string,
    ): Promise<ArtifactStream & { name: string }> {
      const run = await reachRun(caller, runId);
      const graph = sandboxOf(run, sandboxId);
      const wf = graph ? await workflowOf(run) : null;
      if (!wf || !graph) throw notFound(`File ${filename}`);
      const all = Object.values((wf.status?.nodes ?? {}) as Record<string, ArgoApiNode>);
      const task = stepTaskName(graph.name);
      // A sandbox's own name means any of its executions (the latest wins); an instance name one of them.
      const own =
        sandbox === graph.name ? all.filter((n) => n.type === 'Pod' && n.templateName === task) : [];
      const instance = own.length ? undefined : stepNodeOf(wf, graph.name, sandbox);
      const holders = (instance ? [instance] : own)
        .filter((n) => filename !== 'main-logs' && n.outputs?.artifacts?.some((a) => a.name === filename))
        .sort((a, b) => (b.finishedAt ?? '').localeCompare(a.finishedAt ?? ''));
      const holder = holders[0];
      if (!holder) throw notFound(`File ${filename}`);
      const stream = await argo(run)
        .artifact(run.metadata.namespace!, wf.metadata.name!, holder.id, filename)
        .catch(failing('file'));
      if (!stream) throw notFound(`File ${filename}`);
      return { ...stream, name: filename.split('/').pop()! };
    },

    /**
     * GET /file/:run/:sandboxId/:name: the whole log, line by line. A finished step's archived
     * main-logs artifact is streamed as it is; a running one's log through the log route.
     */
    async log(caller: Caller, runId: string, sandboxId: string, name: string) {
      const ref = await step(caller, runId, sandboxId, name);
      const archived = !ref.running && ref.node.outputs?.artifacts?.some((a) => a.name === 'main-logs');
      if (archived) {
        const stream = await argo(placed(ref))
          .artifact(ref.namespace, ref.workflow, ref.node.id, 'main-logs')
          .catch(failing('log'));
        if (stream) return { ref, bytes: stream.body, lines: undefined };
      }
      const lines = await argo(placed(ref))
        .logs(ref.namespace, ref.workflow, { podName: ref.podName })
        .catch(failing('log'));
      if (!lines) throw notFound(`Log of ${name}`);
      return { ref, bytes: undefined, lines };
    },

    /** The log stream behind the log socket: a tail, then (while the step runs) what follows. */
    async logs(ref: StepRef, options: { tailLines?: number; follow?: boolean; signal?: AbortSignal }) {
      const lines = await argo(placed(ref))
        .logs(ref.namespace, ref.workflow, {
          podName: ref.podName,
          ...(options.tailLines !== undefined ? { tailLines: options.tailLines } : {}),
          ...(options.follow ? { follow: true } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        })
        .catch(failing('log'));
      if (!lines) throw notFound('Log');
      return lines;
    },
  };
}

export type RunFileService = ReturnType<typeof createRunFileService>;
