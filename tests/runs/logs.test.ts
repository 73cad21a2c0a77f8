// Run logs and files through the API with the operator and the local runner: the API reads them
// only through the generated Argo client from the runner's argo-server subset. Files listed and
// downloaded, logs downloaded whole, the log socket's tail, follow and `more`, per role; another
// organization's run is a 404 and its log socket is refused.
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { servicesFor, type ApiDeps } from '@sandflow/api';
import type { Run } from '@sandflow/crds';
import { chain, startEnv, until, type Env } from '@sandflow/embedded/testing';
import { apiDepsOn, closeApiOn, serveApi, type World } from '../support/api-on-env.js';

type User = { id: string };
let env: Env;
let deps: ApiDeps;
let world: World;
let server: Server;
let base: string;
let ns: string;

const token = (user: User, organizationId = world.a.org.id) =>
  servicesFor(deps).tokens.signAccessToken({ userId: user.id, organizationId });
async function get(user: User, route: string, organizationId?: string) {
  const res = await fetch(`${base}/api/v0${route}`, {
    headers: { authorization: `Bearer ${await token(user, organizationId)}` },
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

interface Frame {
  live?: boolean;
  log?: string;
  end?: boolean;
  earlier?: string;
  complete?: boolean;
  error?: string;
}
/** A log socket: its frames as they come, and whether it was refused (the HTTP status). */
async function socket(user: User, path: string, organizationId?: string) {
  const ws = new WebSocket(`${base.replace('http', 'ws')}${path}`, {
    headers: { authorization: `Bearer ${await token(user, organizationId)}` },
  });
  const frames: Frame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
  const opened = await new Promise<number>((resolve) => {
    ws.once('open', () => resolve(101));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', () => resolve(0));
  });
  const text = () =>
    frames
      .map((f) => f.log ?? '')
      .join('')
      .split('\n')
      .filter(Boolean);
  return { ws, opened, frames, text };
}

const runOf = (name: string) =>
  env.api.getNamespacedCustomObject({
    group: 'sandflow.io',
    version: 'v1alpha1',
    plural: 'runs',
    namespace: ns,
    name,
  }) as Promise<Run>;
const sandboxStatus = async (run: string, sandbox: string) =>
  (await runOf(run)).status?.sandboxStatuses?.find((s) => s.name === sandbox)?.status;

// A loaded machine: the world (argon2 hashes) and the platform take their time.
beforeAll(async () => {
  env = await startEnv();
  ({ deps, world } = await apiDepsOn(env, { argo: true }));
  // The group namespace of organization a's group, where its sessions and runs live.
  ns = `sf-${world.a.org.slug}-${world.a.group.slug}`;
  await chain(env, ns, {
    first: 'seq 1 3000; mkdir -p $SANDFLOW_OUTPUT; printf hello > $SANDFLOW_OUTPUT/out.txt',
    second: 'for i in $(seq 1 30); do echo live-$i; sleep 0.1; done',
    third: 'seq 1 1000000',
  });
  await env.api.createNamespacedCustomObject({
    group: 'sandflow.io',
    version: 'v1alpha1',
    plural: 'runs',
    namespace: ns,
    body: {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Run',
      metadata: { name: 'r1', labels: { 'sandflow.io/organization': world.a.org.id } },
      spec: { session: 'sess', owner: world.a.target.id, group: world.a.group.id, trigger: 'manual' },
    },
  });
  // The run log socket comes with the terminal's.
  ({ server, base } = await serveApi(deps, { sockets: true }));
}, 120_000);

afterAll(() => closeApiOn(server, deps, env));

describe('run logs and files through the Argo client', () => {
  it('follows a running step on the log socket, then ends with it', async () => {
    await until(async () => (await sandboxStatus('r1', 'second')) === 'RUNNING', 30_000);
    const s = await socket(world.a.user, '/log/r1/second/second');
    expect(s.opened).toBe(101);
    await until(() => s.frames.some((f) => f.end), 30_000);
    expect(s.frames[0]).toEqual({ live: true });
    expect(s.text()).toEqual(Array.from({ length: 30 }, (_, i) => `live-${i + 1}`));
    s.ws.close();
  });

  it('lists and downloads output files and whole logs, per role; 404 for another organization', async () => {
    await until(async () => (await runOf('r1')).status?.phase === 'COMPLETED', 60_000);
    const listed = await get(world.a.user, '/file/r1');
    expect(listed.status).toBe(200);
    const files = (JSON.parse(listed.text) as { result: unknown[] }).result;
    expect(files).toEqual([
      expect.objectContaining({
        name: 'out.txt',
        sandbox: 'first',
        size: 5,
        path: '/sandflow/first/out.txt',
      }),
    ]);
    const file = await get(world.a.target, '/file/r1/first/first/out.txt');
    expect([file.status, file.text]).toEqual([200, 'hello']);
    const log = await get(world.a.groupAdmin, '/file/r1/first/first');
    expect(log.status).toBe(200);
    expect(log.type).toMatch(/^text\/plain/);
    const lines = log.text.split('\n');
    expect([lines.length, lines[0], lines[2999]]).toEqual([3001, '1', '3000']);

    for (const route of ['/file/r1', '/file/r1/first/first/out.txt', '/file/r1/first/first'])
      for (const outsider of [world.b.user, world.b.orgAdmin])
        expect((await get(outsider, route, world.b.org.id)).status, `${route} for another organization`).toBe(
          404,
        );
    expect((await get(world.a.user, '/file/r1/first/first/nope.txt')).status).toBe(404);
    expect((await get(world.a.user, '/file/r1/nobody/nobody')).status).toBe(404);
  });

  it.each([
    ['another organization', () => world.b.user, () => world.b.org.id, 404],
    ['no token', () => null, () => world.a.org.id, 401],
  ])('refuses the log socket for %s', async (_case, user, org, status) => {
    const who = user();
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v0/log/r1/first/first`, {
      headers: who ? { authorization: `Bearer ${await token(who, org())}` } : {},
    });
    const got = await new Promise<number>((resolve) => {
      ws.once('open', () => resolve(101));
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    });
    expect(got).toBe(status);
  });

  it('a 1,000,000-line log: the socket sends a bounded tail, more on demand; the download has every line', async () => {
    await until(async () => (await runOf('r1')).status?.phase === 'COMPLETED', 60_000);
    const s = await socket(world.a.user, '/api/v0/log/r1/third/third?tail=500');
    await until(() => s.frames.some((f) => f.end));
    expect(s.frames[0]).toEqual({ live: false });
    const tail = s.text();
    expect([tail.length, tail[0], tail.at(-1)]).toEqual([500, '999501', '1000000']);
    s.ws.send(JSON.stringify({ more: 3 }));
    const earlier = await until(() => s.frames.find((f) => f.earlier !== undefined));
    expect(earlier).toEqual({ earlier: '999498\n999499\n999500\n', complete: false });
    s.ws.close();

    const res = await fetch(`${base}/api/v0/file/r1/third/third`, {
      headers: { authorization: `Bearer ${await token(world.a.user)}` },
    });
    let count = 0;
    let last = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      for (const c of text) if (c === '\n') count++;
      last = (last + text).slice(-16);
    }
    expect([count, last.trim().split('\n').at(-1)]).toEqual([1_000_000, '1000000']);
  }, 120_000);
});
