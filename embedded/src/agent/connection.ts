// The agent's one connection out to the platform (agents sit behind NAT): it registers with its
// token, beats, applies the Argo Workflows the API assigns it in its own cluster (idempotent by
// namespace/name), reports their status, and answers the dashboard's argo-server requests. After a
// lost connection it reconnects with backoff, re-announces what it holds and reports each status
// again; the API deletes what is no longer its own, so nothing is lost and nothing runs twice. The
// platform's messages are handled one after another (a `delete` is done before the `resumed` that
// follows it lets the runner start); the dashboard's requests stream alongside.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { AgentMessage, AppliedWorkflow, HubMessage } from '@sandflow/api';
import {
  FINAL_WORKFLOW_PHASES,
  KINDS,
  Kube,
  isAlreadyExists,
  isConflict,
  keyOf,
  sameJson,
  startInformer,
  type ArgoServer,
  type ArgoWorkflow,
  type Informer,
} from '@sandflow/kube';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { AgentMetrics } from './metrics.js';

/** Bytes of a log or file per message. */
const CHUNK = 64 * 1024;
/** Unsent bytes on the socket above which a streamed answer waits. */
const HIGH_WATER = 4 * 1024 * 1024;

export interface AgentOptions {
  /** The platform's URL (http(s)://host[:port]); the socket is AGENT_PATH under it. */
  api: string;
  token: string;
  kc: KubeConfig;
  /** The agent cluster's argo-server; undefined while its runner has not started. */
  argoServer: () => ArgoServer | undefined;
  logger: Logger;
  version: string;
  label: string;
  /** What this agent offers (millicores, MB) and its architecture; read again for every beat. */
  resources: () => { cpu: number; memory: number; disk: number; architecture: string };
  /** Called when the platform refuses the token: retrying cannot help. */
  onUnauthorized?: (message: string) => void;
  /** Called after each (re)connection once the platform took the hello: the runner may start. */
  onResumed?: () => Promise<void> | void;
  metrics?: AgentMetrics;
}

export class Agent {
  private readonly kube: Kube;
  private readonly core: CoreV1Api;
  private readonly log: Logger;
  private ws?: WebSocket;
  private informer?: Informer<ArgoWorkflow>;
  private beat?: NodeJS.Timeout;
  private retry?: NodeJS.Timeout;
  private backoffMs = 500;
  private stopped = false;
  private seq = 0;
  /** The status last sent per workflow (sent again only when it changes, or after a reconnect). */
  private readonly sent = new Map<string, unknown>();
  private readonly requests = new Map<number, AbortController>();
  /** The platform's messages, one after another. */
  private chain = Promise.resolve();
  /** Set once the platform welcomed this connection. */
  clusterManager?: string;

  constructor(private readonly options: AgentOptions) {
    this.kube = new Kube(options.kc);
    this.core = options.kc.makeApiClient(CoreV1Api);
    this.log = options.logger.child({ component: 'agent' });
  }

  async start() {
    this.informer = startInformer<ArgoWorkflow>(this.kube, KINDS.argoWorkflow, {
      log: this.log,
      on: (type, wf) => {
        this.countRunning();
        if (type === 'delete') {
          this.sent.delete(keyOf(wf));
          this.send({ type: 'deleted', namespace: wf.metadata.namespace!, name: wf.metadata.name! });
        } else this.report(wf);
      },
    });
    await this.informer.synced;
    this.countRunning();
    this.connect();
  }

  private countRunning() {
    const m = this.options.metrics;
    if (!m || !this.informer) return;
    m.running.set(
      this.informer.list().filter((wf) => !FINAL_WORKFLOW_PHASES.has(wf.status?.phase ?? '')).length,
    );
  }

  async stop() {
    this.stopped = true;
    clearInterval(this.beat);
    clearTimeout(this.retry);
    for (const c of this.requests.values()) c.abort();
    this.ws?.close(1000, 'agent stopping');
    await this.informer?.stop();
  }

  private connect() {
    const url = `${this.options.api.replace(/\/+$/, '').replace(/^http/, 'ws')}/api/v0/cluster/agent`;
    const ws = new WebSocket(url, {
      headers: { Authorization: `Bearer ${this.options.token}` },
      maxPayload: 64 * 1024 * 1024,
    });
    this.ws = ws;
    this.options.metrics?.state('connecting');
    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        this.log.error({ status, body }, 'the platform refused the agent');
        if (status === 401) {
          this.stopped = true;
          this.options.onUnauthorized?.(body || 'wrong or revoked agent token');
        }
      });
      ws.terminate();
    });
    ws.on('error', (e) => this.log.warn({ err: e.message }, 'agent connection error'));
    ws.on('message', (data) => {
      let m: HubMessage;
      try {
        m = JSON.parse(data.toString()) as HubMessage;
      } catch {
        return;
      }
      const handle = () =>
        this.onMessage(m).catch((e: unknown) => this.log.error(e, `agent: ${m.type} failed`));
      // A request streams alongside; everything else waits for the message before it.
      if (m.type === 'http' || m.type === 'http-cancel') void handle();
      else this.chain = this.chain.then(handle);
    });
    ws.on('close', () => {
      if (this.ws === ws) this.options.metrics?.state('closed');
      clearInterval(this.beat);
      for (const c of this.requests.values()) c.abort();
      this.requests.clear();
      if (this.ws !== ws || this.stopped) return;
      this.log.warn({ retryInMs: this.backoffMs }, 'agent disconnected; reconnecting');
      this.retry = setTimeout(() => this.connect(), this.backoffMs);
      this.backoffMs = Math.min(this.backoffMs * 2, 15_000);
    });
  }

  private send(m: AgentMessage) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(m));
  }

  private resources() {
    const r = this.options.resources();
    return { ...r, architecture: r.architecture } as Extract<AgentMessage, { type: 'beat' }>['resources'];
  }

  private async onMessage(m: HubMessage) {
    switch (m.type) {
      case 'welcome': {
        this.backoffMs = 500;
        this.clusterManager = m.clusterManager;
        this.options.metrics?.state('connected');
        const held = this.informer!.list().map((wf) => ({
          namespace: wf.metadata.namespace!,
          name: wf.metadata.name!,
        }));
        this.send({
          type: 'hello',
          version: this.options.version,
          label: this.options.label,
          resources: this.resources(),
          workflows: held,
        });
        // Everything is reported again: a status sent before the connection broke may never have landed.
        this.sent.clear();
        for (const wf of this.informer!.list()) this.report(wf);
        clearInterval(this.beat);
        this.options.metrics?.beats.inc();
        this.beat = setInterval(() => {
          this.send({ type: 'beat', resources: this.resources() });
          this.options.metrics?.beats.inc();
        }, m.heartbeatMs);
        this.log.info({ clusterManager: m.clusterManager, workflows: held.length }, 'agent registered');
        return;
      }
      case 'resumed':
        return this.options.onResumed?.();
      case 'apply':
        this.options.metrics?.assignments.inc({ kind: 'apply' });
        return this.apply(m.workflow, m.withStatus);
      case 'delete':
        this.options.metrics?.assignments.inc({ kind: 'delete' });
        this.log.info({ workflow: `${m.namespace}/${m.name}`, reason: m.reason }, 'deleting a workflow');
        return this.kube.delete(KINDS.argoWorkflow, m.namespace, m.name);
      case 'ack':
        return;
      case 'refused':
        this.log.warn({ seq: m.seq, message: m.message }, 'the platform refused a message');
        return;
      case 'http':
        return this.forward(m.id, m.path);
      case 'http-cancel':
        this.requests.get(m.id)?.abort();
        this.requests.delete(m.id);
        return;
    }
  }

  private report(wf: ArgoWorkflow) {
    if (!wf.status) return;
    const key = keyOf(wf);
    if (this.sent.has(key) && sameJson(this.sent.get(key), wf.status)) return;
    this.sent.set(key, wf.status);
    this.send({
      type: 'status',
      seq: ++this.seq,
      namespace: wf.metadata.namespace!,
      name: wf.metadata.name!,
      status: wf.status as Extract<AgentMessage, { type: 'status' }>['status'],
    });
  }

  /** Creates the workflow, or brings an existing one's spec (and, when told, status) to the platform's. */
  private async apply(w: AppliedWorkflow, withStatus: boolean) {
    const { namespace, name } = w.metadata;
    await this.core.createNamespace({ body: { metadata: { name: namespace } } }).catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
    const metadata = {
      name,
      namespace,
      ...(w.metadata.labels ? { labels: w.metadata.labels } : {}),
      ...(w.metadata.annotations ? { annotations: w.metadata.annotations } : {}),
    };
    for (let attempt = 1; ; attempt++) {
      const existing =
        attempt === 1
          ? this.informer!.get(name, namespace)
          : await this.kube.get<ArgoWorkflow>(KINDS.argoWorkflow, namespace, name);
      try {
        if (!existing) {
          await this.kube.create(KINDS.argoWorkflow, namespace, {
            apiVersion: 'argoproj.io/v1alpha1',
            kind: 'Workflow',
            metadata,
            spec: w.spec,
            ...(withStatus && w.status ? { status: w.status } : {}),
          });
          this.log.info({ workflow: `${namespace}/${name}` }, 'workflow assigned');
          return;
        }
        if (sameJson(existing.spec, w.spec) && !(withStatus && !sameJson(existing.status, w.status))) return;
        await this.kube.replace(KINDS.argoWorkflow, namespace, name, {
          ...existing,
          metadata: { ...existing.metadata, ...metadata },
          spec: w.spec,
          status: withStatus ? w.status : existing.status,
        });
        return;
      } catch (e) {
        if (!(isConflict(e) || isAlreadyExists(e)) || attempt >= 5) throw e;
      }
    }
  }

  /** One argo-server GET of the dashboard, answered in chunks over the socket. */
  private async forward(id: number, path: string) {
    const abort = new AbortController();
    this.requests.set(id, abort);
    try {
      if (!path.startsWith('/api/v1/workflows/') && !path.startsWith('/artifact-files/'))
        throw new Error(`no such route: ${path.split('?')[0]}`);
      const argo = this.options.argoServer();
      if (!argo) throw new Error('the runner has not started yet');
      const base = argo.url.replace(/\/+$/, '');
      const res = await fetch(base + path, {
        headers: argo.token ? { Authorization: `Bearer ${argo.token}` } : {},
        signal: abort.signal,
      });
      const headers: Record<string, string> = {};
      for (const h of ['content-type', 'content-length']) {
        const v = res.headers.get(h);
        if (v) headers[h] = v;
      }
      this.send({ type: 'http-head', id, status: res.status, headers });
      if (res.body)
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          for (let i = 0; i < chunk.length; i += CHUNK)
            this.send({
              type: 'http-body',
              id,
              data: Buffer.from(chunk.subarray(i, i + CHUNK)).toString('base64'),
            });
          while ((this.ws?.bufferedAmount ?? 0) > HIGH_WATER && !abort.signal.aborted)
            await new Promise((r) => setTimeout(r, 20));
        }
      this.send({ type: 'http-end', id });
    } catch (e) {
      if (!abort.signal.aborted) this.send({ type: 'http-end', id, error: (e as Error).message });
    } finally {
      this.requests.delete(id);
    }
  }
}
