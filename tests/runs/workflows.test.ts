// Workflows saved through the API with the operator running: their validity comes from its
// status (null until it has reconciled), a forced sandbox deletion turns them invalid in the API's
// answer, and a saved workflow goes through `kubectl get -o yaml` + `kubectl apply` unchanged.
import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeTenancy, servicesFor, type ApiDeps } from '@sandflow/api';
import type { Workflow } from '@sandflow/crds';
import { startEnv, until, type Env } from '@sandflow/embedded/testing';
import { apiDepsOn, closeApiOn, serveApi, type World } from '../support/api-on-env.js';

let env: Env;
let deps: ApiDeps;
let world: World;
let server: Server;
let base: string;
let namespace: string;

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

async function sandbox(name: string): Promise<string> {
  const res = await call(world.a.target, 'POST', '/sandbox', {
    name,
    entrypoint: '/run.sh',
    permissions: { _public: { read: true, execute: true } },
  });
  expect(res.status).toBe(201);
  return res.body.result.uuid as string;
}

const graph = (first: string, second: string) => ({
  name: 'two steps',
  nodes: [
    { id: 'n1', name: 'first', x: 100, y: 150, src_id: first },
    { id: 'n2', name: 'second', x: 320, y: 150, src_id: second, variables: [{ name: 'A', value: '1' }] },
  ],
  switches: [],
  edges: [
    { id: 'e0', from: 'start', to: 'n1', type: 'start', condition: 'starting' },
    { id: 'e1', from: 'n1', to: 'n2', type: 'single', condition: 'primary' },
  ],
});

beforeAll(async () => {
  env = await startEnv();
  ({ deps, world } = await apiDepsOn(env));
  await createKubeTenancy(env.kc).syncOrganization(world.a.org);
  namespace = `sf-${world.a.org.slug}`;
  ({ server, base } = await serveApi(deps));
}, 60_000);

afterAll(() => closeApiOn(server, deps, env));

describe('workflows with the operator', () => {
  it('is valid once the operator has reconciled it, and invalid in the answer after a forced deletion of its sandbox', async () => {
    const [first, second] = [await sandbox('first_box'), await sandbox('second_box')];
    const created = await call(world.a.target, 'POST', '/workflow', graph(first, second));
    expect(created.status).toBe(201);
    const id = created.body.result.uuid as string;
    const valid = await until(async () => {
      const res = await call(world.a.target, 'GET', `/workflow/${id}`);
      return res.body.result.valid === true ? res.body.result : undefined;
    });
    expect(valid).toMatchObject({ validation_message: 'The workflow passed every validation rule' });

    const forced = await call(world.a.target, 'DELETE', '/sandbox?force=true', { sandboxes: [second] });
    expect(forced.body.result).toMatchObject({
      deleted_sandbox: [second],
      workflows: [{ uuid: id, name: 'two steps', sandboxes: [second] }],
    });
    const invalid = await until(async () => {
      const res = await call(world.a.target, 'GET', `/workflow/${id}`);
      return res.body.result.valid === false ? res.body.result : undefined;
    });
    expect(invalid.validation_message).toBe('The sandbox does not exist');
    expect(invalid.validation_errors).toEqual([
      { code: 'sandboxNotFound', message: 'The sandbox does not exist', node_id: 'n2', edge_id: '' },
    ]);
    const listed = await call(world.a.target, 'GET', '/workflow?mine=true');
    expect(listed.body.result.workflows.find((w: { uuid: string }) => w.uuid === id).valid).toBe(false);
    // Saving it again with the missing sandbox is refused, naming it.
    const resaved = await call(world.a.target, 'PUT', `/workflow/${id}`, graph(first, second));
    expect(resaved.status).toBe(400);
    expect(resaved.body.error!.message).toBe(`nodes.n2: unknown sandbox ${second}`);
  });

  it("is valid when the owner may use a sandbox through one of their groups, whatever the workflow's visibility", async () => {
    const shared = await call(world.a.target, 'POST', '/sandbox', {
      name: 'group_box',
      entrypoint: '/run.sh',
      permissions: { [world.a.group.id]: { read: true, execute: true } },
    });
    expect(shared.status).toBe(201);
    const id = shared.body.result.uuid as string;
    const single = {
      name: 'private use',
      nodes: [{ id: 'n1', name: 'only', x: 100, y: 150, src_id: id }],
      switches: [],
      edges: [{ id: 'e0', from: 'start', to: 'n1', type: 'start', condition: 'starting' }],
    };
    const created = await call(world.a.user, 'POST', '/workflow', single);
    expect(created.status).toBe(201);
    const valid = await until(async () => {
      const res = await call(world.a.user, 'GET', `/workflow/${created.body.result.uuid as string}`);
      return res.body.result.valid !== null ? res.body.result : undefined;
    });
    expect(valid).toMatchObject({ valid: true, visibility: { type: 'private' } });
  });

  it('goes through kubectl get -o yaml and kubectl apply unchanged, and kubectl describe tells its validity', async () => {
    const [first, second] = [await sandbox('apply_one'), await sandbox('apply_two')];
    const created = await call(world.a.target, 'POST', '/workflow', { ...graph(first, second), tags: [] });
    const id = created.body.result.uuid as string;
    await until(
      async () => (await call(world.a.target, 'GET', `/workflow/${id}`)).body.result.valid === true,
    );
    const read = () =>
      env.api.getNamespacedCustomObject({
        group: 'sandflow.io',
        version: 'v1alpha1',
        plural: 'workflows',
        namespace,
        name: id,
      }) as Promise<Workflow>;
    const before = await read();
    const file = path.join(env.dataDir, 'workflow.yaml');
    fs.writeFileSync(
      file,
      await env.kubectl('get', 'workflows.sandflow.io', '-n', namespace, id, '-o', 'yaml'),
    );
    await env.kubectl('apply', '-f', file);
    const after = await read();
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec).toEqual(before.spec);
    expect(after.spec.nodes![0]).toMatchObject({ x: 100, y: 150 });
    const described = await env.kubectl('describe', 'workflows.sandflow.io', '-n', namespace, id);
    expect(described).toContain('The workflow passed every validation rule');
  });
});
