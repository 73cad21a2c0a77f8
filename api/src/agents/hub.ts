// The API's side of the agents (ARCHITECTURE.md "Cluster managers"): agents connect out to
// AGENT_PATH with their token; the hub sends each one the platform's Argo Workflows labelled with its
// cluster manager, writes the status it reports into those workflows (so the operator moves the Run
// as if the local runner had run it), keeps the ClusterManager's lastSeen and resources, carries
// argo-server requests of the run dashboard, and fails the runs of an agent silent for too long.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterManager } from '@sandflow/crds';
import {
  FINAL_WORKFLOW_PHASES,
  KINDS,
  Kube,
  LABELS,
  isConflict,
  keyOf,
  sameJson,
  startInformer,
  type ArgoServer,
  type ArgoWorkflow,
  type Informer,
} from '@sandflow/kube';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { AgentHubMetrics } from '../metrics.js';
import {
  AGENT_PATH,
  agentMessageSchema,
  type AgentMessage,
  type AgentResources,
  type AppliedWorkflow,
  type HubMessage,
} from './protocol.js';
import { AgentRequests } from './transport.js';
import { lostStatus } from './lost.js';

/** On a platform workflow the hub failed because its agent went silent: that cluster manager's name. */
export const AGENT_LOST_ANNOTATION = 'sandflow.io/agent-lost';
/** The architecture an agent reported (ClusterManager has no field for it). */
export const ARCHITECTURE_ANNOTATION = 'sandflow.io/architecture';
/** Spec 3 §4: a cluster manager not seen for 3 minutes is closed; its runs turn ERROR. */
export const DEFAULT_LOST_AFTER_MS = 180_000;

export interface AgentHubOptions {
  kc: KubeConfig;
  logger: Logger;
  /** The token service's check (cluster-tokens.ts): the cluster manager a token opens, or null. */
  verify(token: string, from?: string): Promise<{ clusterManager: string } | null>;
  /** Silence after which an agent's runs turn ERROR (tests shorten it). */
  lostAfterMs?: number;
  /** How often agents beat (told in `welcome`). */
  heartbeatMs?: number;
  /** Where the hub's metrics go (the API's registry, or the all-in-one process's); none: not kept. */
  registry?: Registry;
}

interface Session {
  clusterManager: string;
  ws: WebSocket;
  requests: AgentRequests;
  send(m: HubMessage): void;
}

export class AgentHub {
  private readonly kube: Kube;
  private readonly log: Logger;
  private readonly sessions = new Map<string, Session>();
  private workflows?: Informer<ArgoWorkflow>;
  private managers?: Informer<ClusterManager>;
  /** resourceVersions of the hub's own writes (their watch events need nothing). */
  private readonly ours = new Set<string>();
  /** The status each workflow had when the hub last wrote or sent it: a different one came from elsewhere. */
  private readonly known = new Map<string, unknown>();
  /** The cluster manager each workflow was labelled with, to tell the previous one when it moves. */
  private readonly placedOn = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  readonly lostAfterMs: number;
  readonly heartbeatMs: number;
  private readonly metrics?: AgentHubMetrics;

  constructor(private readonly options: AgentHubOptions) {
    this.kube = new Kube(options.kc);
    this.log = options.logger.child({ component: 'agents' });
    this.lostAfterMs = options.lostAfterMs ?? DEFAULT_LOST_AFTER_MS;
    this.heartbeatMs = options.heartbeatMs ?? Math.min(30_000, Math.floor(this.lostAfterMs / 6));
    if (options.registry) this.metrics = new AgentHubMetrics(options.registry);
  }

  async start() {
    this.managers = startInformer<ClusterManager>(this.kube, KINDS.clusterManager, { log: this.log });
    this.workflows = startInformer<ArgoWorkflow>(this.kube, KINDS.argoWorkflow, {
      log: this.log,
      labelIndexes: { cluster: LABELS.clusterManager },
      on: (type, wf) => this.onWorkflow(type, wf),
    });
    await Promise.all([this.managers.synced, this.workflows.synced]);
    const every = Math.max(500, Math.min(10_000, Math.floor(this.lostAfterMs / 4)));
    this.timer = setInterval(
      () => void this.failSilent().catch((e) => this.log.error(e, 'lost check')),
      every,
    );
  }

  async stop() {
    clearInterval(this.timer);
    for (const s of this.sessions.values()) s.ws.close(1001, 'platform stopping');
    await this.workflows?.stop();
    await this.managers?.stop();
  }

  /** argo-server of an agent's cluster, reached over its socket; undefined for other cluster managers. */
  argoServerFor(clusterManager: string): ArgoServer | undefined {
    const cm = this.managers?.get(clusterManager);
    if (!cm || cm.spec.platformOwned) return undefined;
    return {
      url: `http://agent.${clusterManager}.invalid`,
      fetch: (request: Request) => {
        const s = this.sessions.get(clusterManager);
        if (!s) return Promise.reject(new TypeError(`cluster manager ${clusterManager} is not connected`));
        return s.requests.fetch(request);
      },
    };
  }

  connected(clusterManager: string) {
    return this.sessions.has(clusterManager);
  }

  /** Takes the upgrades to AGENT_PATH on `server`. */
  attach(server: Server): { close(): void } {
    const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (new URL(req.url ?? '/', 'http://x').pathname !== AGENT_PATH) return;
      void this.authenticate(req)
        .then((cm) => {
          if (typeof cm !== 'string') return refuse(socket, cm.status, cm.message);
          wss.handleUpgrade(req, socket, head, (ws) => this.open(cm, ws));
        })
        .catch((e: unknown) => {
          this.log.error(e, 'agent authentication failed');
          refuse(socket, 503, 'try again');
        });
    };
    server.on('upgrade', onUpgrade);
    return {
      close: () => {
        server.off('upgrade', onUpgrade);
        for (const c of wss.clients) c.terminate();
        wss.close();
      },
    };
  }

  private async authenticate(req: IncomingMessage): Promise<string | { status: number; message: string }> {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    const from = req.socket.remoteAddress;
    const identity = token ? await this.options.verify(token, from) : null;
    if (!identity) {
      this.log.warn({ from }, 'agent refused: wrong or revoked token');
      return { status: 401, message: 'wrong or revoked agent token' };
    }
    const cm = this.managers!.get(identity.clusterManager);
    if (!cm || cm.spec.platformOwned) {
      this.log.warn(
        { from, clusterManager: identity.clusterManager },
        'agent refused: no such cluster manager',
      );
      return { status: 404, message: `cluster manager ${identity.clusterManager} not found` };
    }
    return identity.clusterManager;
  }

  private open(clusterManager: string, ws: WebSocket) {
    const log = this.log.child({ clusterManager });
    const previous = this.sessions.get(clusterManager);
    if (previous) previous.ws.close(4000, 'replaced by a newer connection');
    const send = (m: HubMessage) => {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(JSON.stringify(m));
      if (m.type === 'apply' || m.type === 'delete') this.metrics?.assignments.inc({ kind: m.type });
    };
    const session: Session = { clusterManager, ws, requests: new AgentRequests(send), send };
    this.sessions.set(clusterManager, session);
    this.metrics?.connected.set(this.sessions.size);
    log.info('agent connected');
    send({ type: 'welcome', clusterManager, heartbeatMs: this.heartbeatMs });
    // Messages are handled one after another: a status must not overtake the hello before it.
    let chain = Promise.resolve();
    ws.on('message', (data: RawData) => {
      chain = chain.then(() =>
        this.onMessage(session, data).catch((e: unknown) => log.error(e, 'agent message failed')),
      );
    });
    ws.on('close', () => {
      session.requests.closeAll();
      if (this.sessions.get(clusterManager) === session) this.sessions.delete(clusterManager);
      this.metrics?.connected.set(this.sessions.size);
      log.info('agent disconnected');
    });
  }

  private async onMessage(s: Session, data: RawData) {
    let parsed: AgentMessage;
    try {
      const r = agentMessageSchema.safeParse(JSON.parse(data.toString()));
      if (!r.success) {
        const field = r.error.issues[0]?.path.join('.') || 'message';
        this.log.warn({ clusterManager: s.clusterManager, field }, 'agent message refused');
        this.metrics?.refused.inc({ reason: 'invalid' });
        return s.send({ type: 'refused', message: `invalid ${field}` });
      }
      parsed = r.data;
    } catch {
      this.metrics?.refused.inc({ reason: 'invalid' });
      return s.send({ type: 'refused', message: 'not JSON' });
    }
    const m = parsed;
    switch (m.type) {
      case 'hello':
        await this.seen(s.clusterManager, m.resources, { version: m.version, label: m.label });
        this.resume(s, m.workflows);
        // Everything it should not hold was deleted above, before this: it may start its runner now.
        return s.send({ type: 'resumed' });
      case 'beat':
        return this.seen(s.clusterManager, m.resources);
      case 'status':
        return this.status(s, m);
      case 'deleted':
        return;
      case 'http-head':
        return s.requests.head(m.id, m.status, m.headers);
      case 'http-body':
        return s.requests.chunk(m.id, m.data);
      case 'http-end':
        return s.requests.end(m.id, m.error);
    }
  }

  /** A beat: lastSeen now, and the resources it reports when they changed. */
  private async seen(name: string, r: AgentResources, about?: { version: string; label: string }) {
    const stop = this.metrics?.beatSeconds.startTimer();
    const cm = this.managers!.get(name);
    const resources = { cpu: r.cpu, memory: r.memory, disk: r.disk };
    const changed =
      !cm ||
      !sameJson(cm.spec.resources, resources) ||
      cm.metadata.annotations?.[ARCHITECTURE_ANNOTATION] !== r.architecture ||
      (about && (cm.spec.version !== about.version || cm.spec.label !== about.label));
    if (changed)
      await this.kube.patch(KINDS.clusterManager, undefined, name, {
        metadata: { annotations: { [ARCHITECTURE_ANNOTATION]: r.architecture } },
        spec: { resources, ...(about ?? {}) },
      });
    await this.kube.patchStatus(KINDS.clusterManager, undefined, name, {
      lastSeen: new Date().toISOString(),
    });
    stop?.();
    this.metrics?.beats.inc();
  }

  /** After (re)connecting: what it should run is sent again; what it holds and should not, deleted. */
  private resume(s: Session, held: { namespace: string; name: string }[]) {
    const assigned = this.assignedTo(s.clusterManager);
    const keep = new Set(assigned.filter((wf) => !this.lost(wf)).map(keyOf));
    for (const h of held)
      if (!keep.has(`${h.namespace}/${h.name}`))
        s.send({ type: 'delete', ...h, reason: 'not assigned to this cluster manager (any more)' });
    const holds = new Set(held.map((h) => `${h.namespace}/${h.name}`));
    for (const wf of assigned) {
      if (!keep.has(keyOf(wf))) continue;
      if (FINAL_WORKFLOW_PHASES.has(wf.status?.phase ?? '') && !holds.has(keyOf(wf))) continue;
      this.apply(s, wf, false);
    }
  }

  private assignedTo(name: string) {
    return this.workflows!.byIndex('cluster', name);
  }

  /** Failed by the hub for its agent's silence, and not retried since. */
  private lost(wf: ArgoWorkflow) {
    const label = wf.metadata.labels?.[LABELS.clusterManager];
    return (
      wf.metadata.annotations?.[AGENT_LOST_ANNOTATION] === label &&
      FINAL_WORKFLOW_PHASES.has(wf.status?.phase ?? '')
    );
  }

  private apply(s: Session, wf: ArgoWorkflow, withStatus: boolean) {
    const workflow: AppliedWorkflow = {
      metadata: {
        name: wf.metadata.name!,
        namespace: wf.metadata.namespace!,
        ...(wf.metadata.labels ? { labels: wf.metadata.labels } : {}),
        ...(wf.metadata.annotations ? { annotations: wf.metadata.annotations } : {}),
      },
      spec: wf.spec as unknown as Record<string, unknown>,
      ...(withStatus && wf.status ? { status: wf.status as Record<string, unknown> } : {}),
    };
    this.known.set(keyOf(wf), wf.status ?? null);
    s.send({ type: 'apply', workflow, withStatus });
  }

  /** The platform's workflows changed: the agent they are assigned to hears of it. */
  private onWorkflow(type: 'add' | 'update' | 'delete', wf: ArgoWorkflow) {
    const key = keyOf(wf);
    const cm = wf.metadata.labels?.[LABELS.clusterManager] ?? '';
    const before = this.placedOn.get(key);
    const ref = { namespace: wf.metadata.namespace!, name: wf.metadata.name! };
    if (type === 'delete') {
      this.placedOn.delete(key);
      this.known.delete(key);
      this.sessions.get(cm)?.send({ type: 'delete', ...ref, reason: 'deleted on the platform' });
      return;
    }
    this.placedOn.set(key, cm);
    if (before && before !== cm)
      this.sessions.get(before)?.send({ type: 'delete', ...ref, reason: `moved to ${cm}` });
    if (this.ours.delete(wf.metadata.resourceVersion!)) return;
    const s = this.sessions.get(cm);
    if (!s || this.lost(wf)) return;
    const statusFromElsewhere =
      type === 'update' && this.known.has(key) && !sameJson(this.known.get(key), wf.status ?? null);
    this.apply(s, wf, statusFromElsewhere || (before !== undefined && before !== cm));
  }

  /** A status report: written into the platform's workflow, when that workflow is this agent's. */
  private async status(s: Session, m: Extract<AgentMessage, { type: 'status' }>) {
    const key = `${m.namespace}/${m.name}`;
    for (let attempt = 1; ; attempt++) {
      const wf =
        attempt === 1
          ? this.workflows!.get(m.name, m.namespace)
          : await this.kube.get<ArgoWorkflow>(KINDS.argoWorkflow, m.namespace, m.name);
      if (!wf || wf.metadata.labels?.[LABELS.clusterManager] !== s.clusterManager || this.lost(wf)) {
        this.log.warn(
          { clusterManager: s.clusterManager, workflow: key },
          'status refused: not assigned to it',
        );
        this.metrics?.refused.inc({ reason: 'not_assigned' });
        s.send({
          type: 'refused',
          seq: m.seq,
          message: `workflow ${key} is not assigned to ${s.clusterManager}`,
        });
        s.send({
          type: 'delete',
          namespace: m.namespace,
          name: m.name,
          reason: 'not assigned to this cluster manager',
        });
        return;
      }
      if (sameJson(wf.status ?? null, m.status)) return s.send({ type: 'ack', seq: m.seq });
      // Known before the write: its watch event can arrive before the write's answer, and must not
      // look like a status from elsewhere (that would send the agent its own, by then older, status).
      const had = this.known.has(key);
      const before = this.known.get(key);
      this.known.set(key, m.status);
      try {
        const written = await this.kube.replace<ArgoWorkflow>(KINDS.argoWorkflow, m.namespace, m.name, {
          ...wf,
          status: m.status,
        });
        this.ours.add(written.metadata.resourceVersion!);
        return s.send({ type: 'ack', seq: m.seq });
      } catch (e) {
        if (had) this.known.set(key, before);
        else this.known.delete(key);
        if (!isConflict(e) || attempt >= 5) throw e;
      }
    }
  }

  /** Agents silent for lostAfterMs: their unfinished workflows fail with a message naming them. */
  private async failSilent(now = Date.now()) {
    for (const cm of this.managers!.list()) {
      if (cm.spec.platformOwned) continue;
      const name = cm.metadata.name!;
      const seen = Date.parse(cm.status?.lastSeen ?? cm.metadata.creationTimestamp ?? '');
      if (!(now - seen > this.lostAfterMs)) continue;
      for (const wf of this.assignedTo(name)) {
        if (FINAL_WORKFLOW_PHASES.has(wf.status?.phase ?? '')) continue;
        const message = `cluster manager ${cm.spec.title || name} lost: no heartbeat for ${Math.round((now - seen) / 1000)} s`;
        try {
          const written = await this.kube.replace<ArgoWorkflow>(
            KINDS.argoWorkflow,
            wf.metadata.namespace!,
            wf.metadata.name!,
            {
              ...wf,
              metadata: {
                ...wf.metadata,
                annotations: { ...wf.metadata.annotations, [AGENT_LOST_ANNOTATION]: name },
              },
              status: lostStatus(wf, message, new Date(now)),
            },
          );
          this.ours.add(written.metadata.resourceVersion!);
          this.log.warn({ clusterManager: name, workflow: keyOf(wf) }, message);
        } catch (e) {
          if (!isConflict(e)) throw e; // changed meanwhile: the next round looks again
        }
      }
    }
  }
}

function refuse(socket: Duplex, status: number, message: string) {
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Service Unavailable'}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
  );
}
