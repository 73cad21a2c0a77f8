// The agent end to end: the platform (operator, API, agent hub, a local runner that leaves other
// cluster managers' workflows alone) and ONE agent as a separate process (`sandflow agent`, with its
// own data folder, kube-lite and runner). POST /cluster answers the token, the agent connects and
// GET /cluster shows it connected with its resources; a session preferring that manager runs there
// to COMPLETED; a wrong token is refused and audited; a killed agent's run turns ERROR naming it.
import os from 'node:os';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_PATH, servicesFor } from '@sandflow/api';
import { until } from '@sandflow/embedded/testing';
import { LABELS } from '@sandflow/kube';
import {
  connected,
  logsContaining,
  runOf,
  sandboxFlow,
  startBed,
  startSession,
  statusOf,
  type AgentProcess,
  type Bed,
} from '../support/agents.js';

const LOST_MS = 3000;

let bed: Bed;
let agent: AgentProcess;
let clusterId: string;
let token: string;
const workflows: Record<string, string> = {};
let helloWorkflow: { namespace: string; name: string };

beforeAll(async () => {
  bed = await startBed({ lostMs: LOST_MS });
  workflows.hello = await sandboxFlow(bed, 'hello', 'echo hello-from-the-agent');
  workflows.nap = await sandboxFlow(bed, 'nap', 'sleep 60');
}, 60_000);

afterAll(() => bed?.close(), 60_000);

const start = (name: string) =>
  startSession(bed, workflows[name]!, { prefer: clusterId, name: `on the agent: ${name}` });

describe('an agent of another cluster manager', () => {
  it('registers with the token POST /cluster answered and shows as connected with its resources', async () => {
    const created = await bed.call(bed.world.a.orgAdmin, 'POST', '/cluster', {});
    expect(created.status).toBe(201);
    clusterId = created.body.result.id as string;
    token = created.body.result.token as string;
    agent = bed.startAgent(token);
    const seen = await connected(bed, clusterId, agent);
    expect(seen).toMatchObject({ isAlive: true, label: os.hostname(), version: '0.1.0' });
    expect(seen.memory).toBeGreaterThan(0);
    expect(seen.disk).toBeGreaterThan(0);
    expect(bed.hub.connected(clusterId)).toBe(true);
  }, 120_000);

  it("runs a session that prefers it in the agent's runner, not the platform's", async () => {
    const run_uuid = await start('hello');
    const done = await statusOf(bed, run_uuid, 'COMPLETED');
    expect(done.sandbox_statuses.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['hello', 'COMPLETED'],
    ]);
    expect((await runOf(bed, run_uuid)).status?.clusterManager).toBe(clusterId);
    const placed = (await bed.env.api.listNamespacedCustomObject({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'workflows',
      namespace: `sf-${bed.world.a.org.slug}-${bed.world.a.group.slug}`,
      labelSelector: `${LABELS.clusterManager}=${clusterId}`,
    })) as { items: { metadata: { namespace: string; name: string }; status?: { phase?: string } }[] };
    expect(placed.items.map((w) => w.status?.phase)).toEqual(['Succeeded']);
    helloWorkflow = { namespace: placed.items[0]!.metadata.namespace, name: placed.items[0]!.metadata.name };
    expect(logsContaining(agent.dir, 'hello-from-the-agent')).not.toEqual([]);
    expect(logsContaining(bed.env.dataDir, 'hello-from-the-agent')).toEqual([]);
    // The run dashboard's log comes from the agent's argo-server, over its socket.
    const access = await servicesFor(bed.deps).tokens.signAccessToken({
      userId: bed.world.a.target.id,
      organizationId: bed.world.a.org.id,
    });
    const log = await fetch(`${bed.base}/api/v0/file/${run_uuid}/hello/hello`, {
      headers: { authorization: `Bearer ${access}` },
    });
    expect(log.status).toBe(200);
    expect(await log.text()).toContain('hello-from-the-agent');
  }, 90_000);

  it.each([
    ['a wrong token', 'sfa_' + 'x'.repeat(43), 'unknown'],
    ['a malformed token', 'not-a-token', 'malformed'],
  ])('refuses %s with 401 and audits it', async (_name, wrong, reason) => {
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${bed.base.replace('http', 'ws')}${AGENT_PATH}`, {
        headers: { Authorization: `Bearer ${wrong}` },
      });
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('open', () => reject(new Error('a wrong token was let in')));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(401);
    const audited = await until(() =>
      bed.deps
        .db('events')
        .where({ kind: 'clusters', action: 'token_refused' })
        .whereRaw('data::text like ?', [`%${reason}%`])
        .first(),
    );
    expect(audited).toBeDefined();
  });

  it("refuses another agent's status for a workflow not assigned to it, and absurd resources, and logs both", async () => {
    const other = await bed.call(bed.world.a.orgAdmin, 'POST', '/cluster', {});
    expect(other.status).toBe(201);
    const otherId = other.body.result.id as string;
    const ws = new WebSocket(`${bed.base.replace('http', 'ws')}${AGENT_PATH}`, {
      headers: { Authorization: `Bearer ${other.body.result.token}` },
    });
    const received: { type: string; [k: string]: unknown }[] = [];
    ws.on('message', (d) => received.push(JSON.parse(d.toString())));
    try {
      await until(() => received.find((m) => m.type === 'welcome'), 10_000);
      const send = (m: object) => ws.send(JSON.stringify(m));
      send({
        type: 'hello',
        version: '0.1.0',
        label: 'intruder',
        resources: { cpu: 1000, memory: 1024, disk: 1024, architecture: 'amd64' },
        workflows: [],
      });
      send({ type: 'status', seq: 7, ...helloWorkflow, status: { phase: 'Failed', nodes: {} } });
      send({ type: 'beat', resources: { cpu: 1e12, memory: 1024, disk: 1024, architecture: 'amd64' } });
      const refusedStatus = await until(
        () => received.find((m) => m.type === 'refused' && m.seq === 7),
        10_000,
      );
      expect(refusedStatus.message).toBe(
        `workflow ${helloWorkflow.namespace}/${helloWorkflow.name} is not assigned to ${otherId}`,
      );
      expect(received).toContainEqual(expect.objectContaining({ type: 'delete', ...helloWorkflow }));
      const refusedBeat = await until(
        () => received.find((m) => m.type === 'refused' && m.seq === undefined),
        10_000,
      );
      expect(refusedBeat.message).toBe('invalid resources.cpu');
    } finally {
      ws.terminate();
    }
    // The platform's workflow kept the agent's own status.
    const wf = (await bed.env.api.getNamespacedCustomObject({
      group: 'argoproj.io',
      version: 'v1alpha1',
      plural: 'workflows',
      ...helloWorkflow,
    })) as { status?: { phase?: string } };
    expect(wf.status?.phase).toBe('Succeeded');
    const warnings = bed.logged.map(
      (l) => JSON.parse(l) as { msg: string; clusterManager?: string; field?: string },
    );
    expect(warnings).toContainEqual(
      expect.objectContaining({ msg: 'status refused: not assigned to it', clusterManager: otherId }),
    );
    expect(warnings).toContainEqual(
      expect.objectContaining({
        msg: 'agent message refused',
        clusterManager: otherId,
        field: 'resources.cpu',
      }),
    );
  }, 30_000);

  it("counts the hub's work on the API's /metrics", async () => {
    // The intruder's socket above closes on the platform's side shortly after it was terminated.
    const text = await until(async () => {
      const res = await fetch(`${bed.base}/metrics`);
      const t = res.status === 200 ? await res.text() : '';
      return /^sandflow_agents_connected 1$/m.test(t) ? t : undefined;
    }, 10_000);
    const sample = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(sample('sandflow_agents_connected')).toBe(1); // the agent; the intruder above is gone
    expect(sample('sandflow_agent_assignments_sent_total{kind="apply"}')).toBeGreaterThanOrEqual(1);
    expect(sample('sandflow_agent_assignments_sent_total{kind="delete"}')).toBeGreaterThanOrEqual(1);
    expect(sample('sandflow_agent_messages_refused_total{reason="not_assigned"}')).toBe(1);
    expect(sample('sandflow_agent_messages_refused_total{reason="invalid"}')).toBe(1);
    expect(sample('sandflow_agent_heartbeats_total')).toBeGreaterThanOrEqual(2); // two hellos at least
    expect(sample('sandflow_agent_heartbeat_duration_seconds_count')).toBe(
      sample('sandflow_agent_heartbeats_total'),
    );
  });

  it('turns the run ERROR, naming the manager, when the agent is killed mid-run', async () => {
    const run_uuid = await start('nap');
    await statusOf(bed, run_uuid, 'RUNNING');
    await agent.kill();
    const failed = await statusOf(bed, run_uuid, 'ERROR');
    const run = await runOf(bed, run_uuid);
    expect(run.status?.clusterManager).toBe(clusterId);
    expect(JSON.stringify(failed) + JSON.stringify(run.status)).toContain(
      `cluster manager ${clusterId} lost`,
    );
  }, 90_000);
});
