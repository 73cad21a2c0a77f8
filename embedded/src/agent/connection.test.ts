// The agent against a stand-in platform (a WebSocket server speaking the hub's side of the protocol)
// and a real kube-lite as its cluster: after a (re)connection the platform's deletes are carried out
// before the runner is let start, so a workflow that moved elsewhere never runs here again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AgentMessage, HubMessage } from '@sandflow/api';
import { KINDS, Kube } from '@sandflow/kube';
import { startTestCluster } from '../runner/testing.js';
import { Agent } from './connection.js';
import { AgentMetrics } from './metrics.js';

type Cluster = Awaited<ReturnType<typeof startTestCluster>>;
let cluster: Cluster;
let kube: Kube;
let server: http.Server;
let wss: WebSocketServer;
let url: string;

const ns = 'sf-org-group';
const workflow = (name: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Workflow',
  metadata: { name, namespace: ns },
  spec: { entrypoint: 'main', templates: [{ name: 'main', container: { image: 'alpine' } }] },
});

beforeAll(async () => {
  cluster = await startTestCluster();
  kube = new Kube(cluster.kc);
  await cluster.kc
    .makeApiClient((await import('@kubernetes/client-node')).CoreV1Api)
    .createNamespace({ body: { metadata: { name: ns } } });
  server = http.createServer();
  wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  wss?.close();
  await new Promise((resolve) => server?.close(resolve));
  await cluster?.close();
});

describe('the agent after a reconnect', () => {
  it('deletes what the platform says is no longer its own before it lets the runner start', async () => {
    await kube.create(KINDS.argoWorkflow, ns, workflow('moved-away'));
    await kube.create(KINDS.argoWorkflow, ns, workflow('still-mine'));
    const hellos: AgentMessage[] = [];
    wss.once('connection', (ws: WebSocket) => {
      const send = (m: HubMessage) => ws.send(JSON.stringify(m));
      ws.on('message', (d) => {
        const m = JSON.parse(d.toString()) as AgentMessage;
        if (m.type !== 'hello') return;
        hellos.push(m);
        // As the hub's resume: the deletion first, then `resumed`, in one go.
        send({ type: 'delete', namespace: ns, name: 'moved-away', reason: 'moved to cm-other' });
        send({ type: 'resumed' });
      });
      send({ type: 'welcome', clusterManager: 'cm-test', heartbeatMs: 60_000 });
    });
    const metrics = new AgentMetrics({ processMetrics: false });
    let atResume: string[] | undefined;
    let onResumed!: () => void;
    const resumed = new Promise<void>((resolve) => (onResumed = resolve));
    const agent = new Agent({
      api: url,
      token: 'sfa_test',
      kc: cluster.kc,
      argoServer: () => undefined,
      logger: pino({ level: 'silent' }),
      version: '0.1.0',
      label: 'test',
      resources: () => ({ cpu: 1000, memory: 1024, disk: 1024, architecture: 'amd64' }),
      metrics,
      onResumed: async () => {
        const l = await kube.list<{ metadata: { name: string } }>(KINDS.argoWorkflow);
        atResume = l.items.map((w) => w.metadata.name).sort();
        onResumed();
      },
    });
    await agent.start();
    try {
      await resumed;
      expect(hellos).toHaveLength(1);
      expect(
        (hellos[0] as Extract<AgentMessage, { type: 'hello' }>).workflows.map((w) => w.name).sort(),
      ).toEqual(['moved-away', 'still-mine']);
      expect(atResume).toEqual(['still-mine']);
      expect((await metrics.connection.get()).values.find((v) => v.labels.state === 'connected')?.value).toBe(
        1,
      );
      expect((await metrics.assignments.get()).values).toEqual([
        expect.objectContaining({ labels: { kind: 'delete' }, value: 1 }),
      ]);
    } finally {
      await agent.stop();
    }
  }, 60_000);
});
