// Sessions and runs through the API with the operator and the local runner: Start Now runs to
// COMPLETED and notifies the owner, a restart asked through PUT /run is carried out, the API's
// action rules are the operator's, and an event session starts a run when its URL turns to answering
// what it expects (a local HTTP server on 127.0.0.1).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeTenancy, servicesFor, type ApiDeps } from '@sandflow/api';
import { RUN_ACTION_RULES } from '@sandflow/api/testing';
import { startEnv, until, type Env } from '@sandflow/embedded/testing';
import { ACTION_RULES } from '@sandflow/operator';
import { apiDepsOn, closeApiOn, serveApi, type World } from '../support/api-on-env.js';

let env: Env;
let deps: ApiDeps;
let world: World;
let server: http.Server;
let base: string;
let workflow: string;
/** What the polled URL answers now. */
let answer = { status: 503, body: 'not yet' };
let polls = 0;
let events: http.Server;
let eventUrl: string;

async function call(user: { id: string }, method: string, route: string, body?: object) {
  const token = await servicesFor(deps).tokens.signAccessToken({
    userId: user.id,
    organizationId: world.a.org.id,
  });
  const res = await fetch(`${base}/api/v0${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as { result: any; error?: { message: string } } };
}

beforeAll(async () => {
  env = await startEnv({ operator: { eventPeriodMs: { minutely: 100 } } });
  ({ deps, world } = await apiDepsOn(env));
  const tenancy = createKubeTenancy(env.kc);
  await tenancy.syncOrganization(world.a.org);
  await tenancy.syncGroup(world.a.org, { ...world.a.group, quota: { cpu: 2000, memory: 2048, disk: 2048 } });
  ({ server, base } = await serveApi(deps));
  events = http.createServer((_req, res) => {
    polls++;
    res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
  });
  events.listen(0, '127.0.0.1');
  await new Promise((resolve) => events.once('listening', resolve));
  eventUrl = `http://127.0.0.1:${(events.address() as AddressInfo).port}/state`;

  const boxes: string[] = [];
  for (const [name, entrypoint] of [
    ['first', 'echo first'],
    ['second', 'sleep 0.3'],
  ]) {
    const res = await call(world.a.target, 'POST', '/sandbox', {
      name,
      entrypoint,
      source_image: { image: 'alpine', version: '3.20' },
      permissions: { _public: { read: true, execute: true } },
    });
    expect(res.status).toBe(201);
    boxes.push(res.body.result.uuid as string);
  }
  const wf = await call(world.a.target, 'POST', '/workflow', {
    name: 'two steps',
    nodes: [
      { id: 'n1', name: 'first', src_id: boxes[0] },
      { id: 'n2', name: 'second', src_id: boxes[1] },
    ],
    edges: [{ id: 'e1', from: 'n1', to: 'n2', type: 'single' }],
  });
  expect(wf.status).toBe(201);
  workflow = wf.body.result.uuid as string;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => events?.close(resolve));
  await closeApiOn(server, deps, env);
});

const form = (overrides: Record<string, unknown> = {}) => ({
  name: 'through the api',
  workflow_uuid: workflow,
  group: world.a.group.id,
  ...overrides,
});
const phaseOf = (run: string, want: string) =>
  until(async () => {
    const res = await call(world.a.target, 'GET', `/run/${run}`);
    return res.body.result?.status === want ? res.body.result : undefined;
  }, 30_000);

describe('sessions and runs with the operator', () => {
  it("answers run actions from the states the operator's own rules allow", () => {
    const asSorted = (rules: Record<string, ReadonlySet<string>>) =>
      Object.fromEntries(Object.entries(rules).map(([k, v]) => [k, [...v].sort()]));
    expect(asSorted(RUN_ACTION_RULES)).toEqual(asSorted(ACTION_RULES));
  });

  it('Start Now runs to COMPLETED, notifies the owner, and a restart through PUT /run runs again', async () => {
    const started = await call(world.a.target, 'POST', '/session/instance', form());
    expect(started.status).toBe(201);
    const { schedule_id, run_uuid } = started.body.result;
    const done = await phaseOf(run_uuid, 'COMPLETED');
    expect(done.sandbox_statuses.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['first', 'COMPLETED'],
      ['second', 'COMPLETED'],
    ]);
    expect(done.stop).not.toBe('0001-01-01T00:00:00Z');
    expect(done.workflow.nodes.map((n: { name: string }) => n.name)).toEqual(['first', 'second']);
    const notified = await until(() =>
      deps.db('notifications').where({ user_id: world.a.target.id, title: 'Run completed' }).first(),
    );
    expect(notified.data).toMatchObject({ uuid: schedule_id, run_uuid });
    const listed = await call(world.a.user, 'GET', '/session');
    expect(listed.body.result.find((s: { uuid: string }) => s.uuid === schedule_id)).toMatchObject({
      run_count: 1,
      running: false,
      error: false,
    });

    const refused = await call(world.a.target, 'PUT', `/run/${run_uuid}`, { action: 'resume' });
    expect(refused.status).toBe(409);
    expect(refused.body.error!.message).toContain('while the run is COMPLETED');
    const restarted = await call(world.a.user, 'PUT', `/run/${run_uuid}`, { action: 'restart' });
    expect(restarted.status).toBe(200);
    const again = await until(async () => {
      const res = await call(world.a.target, 'GET', `/run/${run_uuid}`);
      const r = res.body.result;
      return r.status === 'COMPLETED' && r.history.some((h: { action: string }) => h.action === 'restart')
        ? r
        : undefined;
    }, 30_000);
    expect(again.history.map((h: { action: string }) => h.action)).toContain('restart');
    // Spec 2 §3: the history names who did what by username — the target started it, the user
    // (not the run's owner) restarted it.
    const byUsers = (again.history as { username: string; action: string }[])
      .filter((h) => h.username)
      .map((h) => [h.username, h.action]);
    expect(byUsers).toEqual([
      [world.a.target.email, 'created'],
      [world.a.user.email, 'restart'],
    ]);
  });

  it('an event session starts one run when its URL turns to answering as expected, and again after it turned away', async () => {
    answer = { status: 503, body: 'not yet' };
    const saved = await call(
      world.a.target,
      'POST',
      '/session',
      form({
        name: 'on event',
        type: 'event',
        events: [{ url: eventUrl, expect: 'ready', periodic_label: 'minutely', periodic_value: 1 }],
      }),
    );
    expect(saved.status).toBe(201);
    const id = saved.body.result.uuid as string;
    const runs = async () =>
      (await call(world.a.target, 'GET', `/event/${id}/run`)).body.result as {
        uuid: string;
        trigger: string;
      }[];
    const from = polls;
    await until(() => polls >= from + 3);
    expect(await runs()).toEqual([]);

    answer = { status: 200, body: 'state: ready' };
    const first = await until(async () => ((await runs()).length === 1 ? await runs() : undefined), 15_000);
    expect(first[0]!.trigger).toBe('event');
    const later = polls;
    await until(() => polls >= later + 5); // still matching: no second run
    expect(await runs()).toHaveLength(1);

    answer = { status: 200, body: 'not yet' };
    const away = polls;
    await until(() => polls >= away + 2);
    answer = { status: 200, body: 'ready again' };
    await until(async () => (await runs()).length === 2, 15_000);

    // Switched to a schedule session, it is polled no more.
    const updated = await call(
      world.a.target,
      'PUT',
      `/session/${id}`,
      form({ name: 'on event', type: 'schedule', events: [] }),
    );
    expect(updated.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopped = polls;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(polls).toBe(stopped);
  });

  it('a saved session goes through kubectl get -o yaml and kubectl apply unchanged; one applied with kubectl shows to its group', async () => {
    const saved = await call(world.a.target, 'POST', '/session', form({ name: 'kubectl round trip' }));
    const id = saved.body.result.uuid as string;
    const namespace = `sf-${world.a.org.slug}-${world.a.group.slug}`;
    const read = () =>
      env.api.getNamespacedCustomObject({
        group: 'sandflow.io',
        version: 'v1alpha1',
        plural: 'sessions',
        namespace,
        name: id,
      }) as Promise<{ metadata: { generation: number }; spec: object }>;
    const before = await read();
    const file = path.join(env.dataDir, 'session.yaml');
    fs.writeFileSync(
      file,
      await env.kubectl('get', 'sessions.sandflow.io', '-n', namespace, id, '-o', 'yaml'),
    );
    await env.kubectl('apply', '-f', file);
    const after = await read();
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec).toEqual(before.spec);

    fs.writeFileSync(
      file,
      [
        'apiVersion: sandflow.io/v1alpha1',
        'kind: Session',
        'metadata:',
        '  name: applied-by-kubectl',
        `  namespace: ${namespace}`,
        'spec:',
        '  name: from kubectl',
        `  workflow: ${workflow}`,
        `  workflowNamespace: sf-${world.a.org.slug}`,
        `  group: ${world.a.group.id}`,
        '',
      ].join('\n'),
    );
    await env.kubectl('apply', '-f', file);
    const seen = await until(async () => {
      const res = await call(world.a.user, 'GET', '/session');
      return res.body.result.find((s: { uuid: string }) => s.uuid === 'applied-by-kubectl');
    });
    expect(seen).toMatchObject({ name: 'from kubectl', workflow: 'two steps', run_count: 0 });
    const started = await call(world.a.user, 'POST', '/session/fast', {
      uuid: 'applied-by-kubectl',
      workflow_uuid: workflow,
    });
    expect(started.status).toBe(201);
    await phaseOf(started.body.result.run_uuid, 'COMPLETED');
  });
});
