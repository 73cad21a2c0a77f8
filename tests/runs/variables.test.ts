// GET /run/{uuid}/variables with the operator and the local runner: the values each sandbox ran
// with are read from the run's Argo Workflow (through the runner's argo-server subset), each with the
// layer it came from (session override over workflow node over sandbox default), and the step's log
// shows the value really reached it. Another organization's run is a 404.
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const G = { group: 'sandflow.io', version: 'v1alpha1' };
const token = (user: User, organizationId = world.a.org.id) =>
  servicesFor(deps).tokens.signAccessToken({ userId: user.id, organizationId });
async function get(user: User, route: string, organizationId?: string) {
  const res = await fetch(`${base}/api/v0${route}`, {
    headers: { authorization: `Bearer ${await token(user, organizationId)}` },
  });
  return { status: res.status, text: await res.text() };
}
/** Reads an object of the group namespace, changes its spec, writes it back. */
async function edit<T extends { spec: object }>(
  plural: string,
  name: string,
  change: (spec: T['spec']) => void,
) {
  const object = (await env.api.getNamespacedCustomObject({ ...G, plural, namespace: ns, name })) as T;
  change(object.spec);
  await env.api.replaceNamespacedCustomObject({ ...G, plural, namespace: ns, name, body: object });
}
const runOf = (name: string) =>
  env.api.getNamespacedCustomObject({ ...G, plural: 'runs', namespace: ns, name }) as Promise<Run>;

beforeAll(async () => {
  env = await startEnv();
  ({ deps, world } = await apiDepsOn(env, { argo: true }));
  ns = `sf-${world.a.org.slug}-${world.a.group.slug}`;
  await chain(env, ns, { first: 'echo "greeting=$GREETING mode=$MODE keep=$KEEP"', second: 'true' });
  await edit('sandboxes', 'sb-first', (spec: { variables?: unknown }) => {
    spec.variables = [
      { name: 'GREETING', value: 'sandbox-hi' },
      { name: 'KEEP', value: 'sandbox default' },
    ];
  });
  await edit('workflows', 'wf', (spec: { nodes?: { name: string; variables?: unknown }[] }) => {
    spec.nodes!.find((n) => n.name === 'first')!.variables = [
      { name: 'GREETING', value: 'node-hi' },
      { name: 'MODE', value: 'node mode' },
    ];
  });
  await edit('sessions', 'sess', (spec: { variables?: unknown }) => {
    spec.variables = { first: [{ name: 'GREETING', value: 'session-hi' }] };
  });
  ({ server, base } = await serveApi(deps));
}, 120_000);

afterAll(() => closeApiOn(server, deps, env));

describe('GET /run/{uuid}/variables', () => {
  it('lists what each sandbox ran with and where each value came from', async () => {
    await env.api.createNamespacedCustomObject({
      ...G,
      plural: 'runs',
      namespace: ns,
      body: {
        apiVersion: 'sandflow.io/v1alpha1',
        kind: 'Run',
        metadata: { name: 'r1', labels: { 'sandflow.io/organization': world.a.org.id } },
        spec: { session: 'sess', owner: world.a.target.id, group: world.a.group.id, trigger: 'manual' },
      },
    });
    await until(async () => (await runOf('r1')).status?.phase === 'COMPLETED', 60_000);
    const answer = await get(world.a.user, '/run/r1/variables');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({
      status: 200,
      result: {
        compiled: true,
        sandboxes: [
          {
            id: 'first',
            name: 'first',
            variables: [
              { name: 'GREETING', value: 'session-hi', source: 'session' },
              { name: 'KEEP', value: 'sandbox default', source: 'sandbox' },
              { name: 'MODE', value: 'node mode', source: 'workflow' },
            ],
          },
          { id: 'second', name: 'second', variables: [] },
        ],
      },
    });
    const log = await get(world.a.user, '/file/r1/first/first');
    expect(log.text.trim()).toBe('greeting=session-hi mode=node mode keep=sandbox default');

    // The session changed since the run: its old value is no longer held by any layer.
    await edit('sessions', 'sess', (spec: { variables?: unknown }) => {
      spec.variables = { first: [{ name: 'GREETING', value: 'later' }] };
    });
    const later = await until(async () => {
      const a = JSON.parse((await get(world.a.user, '/run/r1/variables')).text) as {
        result: { sandboxes: { variables: { name: string; source: string }[] }[] };
      };
      const greeting = a.result.sandboxes[0]!.variables.find((v) => v.name === 'GREETING')!;
      return greeting.source === 'unknown' ? greeting : undefined;
    }, 30_000);
    expect(later).toEqual({ name: 'GREETING', value: 'session-hi', source: 'unknown' });
  });

  it.each([
    ['a user of another organization', () => world.b.user, () => world.b.org.id],
    ['an organization admin of another organization', () => world.b.orgAdmin, () => world.b.org.id],
  ])('is a 404 for %s', async (_case, user, org) => {
    expect((await get(user(), '/run/r1/variables', org())).status).toBe(404);
  });

  it('is a 404 for a run that does not exist', async () => {
    expect((await get(world.a.user, '/run/nope/variables')).status).toBe(404);
  });
});
