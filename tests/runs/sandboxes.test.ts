// kubectl and the API meet in the same Sandbox objects, and a forced sandbox deletion through the
// API invalidates the workflows that used it (the operator's Workflow validation).
import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
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

beforeAll(async () => {
  env = await startEnv();
  ({ deps, world } = await apiDepsOn(env));
  await createKubeTenancy(env.kc).syncOrganization(world.a.org);
  namespace = `sf-${world.a.org.slug}`;
  ({ server, base } = await serveApi(deps));
}, 60_000);

afterAll(() => closeApiOn(server, deps, env));

describe('sandboxes through kubectl and the API', () => {
  it('a sandbox applied with kubectl shows in GET /sandbox; a rename through the API shows in kubectl get', async () => {
    const manifest = path.join(env.dataDir, 'sandbox.yaml');
    fs.writeFileSync(
      manifest,
      [
        'apiVersion: sandflow.io/v1alpha1',
        'kind: Sandbox',
        'metadata:',
        '  name: gitops-box',
        `  namespace: ${namespace}`,
        'spec:',
        '  name: gitops_box',
        '  entrypoint: /run.sh',
        '  visibility: { type: public }',
        '',
      ].join('\n'),
    );
    await env.kubectl('apply', '-f', manifest);
    const listed = await until(async () => {
      const res = await call(world.a.user, 'GET', '/sandbox?search=gitops_box');
      return res.body.result.sandboxes[0] as { uuid: string; name: string } | undefined;
    });
    expect(listed).toMatchObject({ uuid: 'gitops-box', name: 'gitops_box' });

    const renamed = await call(world.a.orgAdmin, 'PUT', '/sandbox/gitops-box/name', { name: 'renamed_box' });
    expect(renamed.status).toBe(200);
    const printed = await env.kubectl(
      'get',
      'sandboxes',
      '-n',
      namespace,
      'gitops-box',
      '-o',
      'jsonpath={.spec.name}',
    );
    expect(printed).toBe('renamed_box');
  });

  it('deleting a sandbox a workflow uses: kept without force, deleted with force, and the workflow turns invalid', async () => {
    const created = await call(world.a.target, 'POST', '/sandbox', {
      name: 'used_box',
      entrypoint: '/run.sh',
      permissions: { _public: { read: true, execute: true } },
    });
    expect(created.status).toBe(201);
    const id = created.body.result.uuid as string;
    const workflow: Workflow = {
      apiVersion: 'sandflow.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'uses-box', namespace },
      spec: {
        name: 'uses_box',
        owner: world.a.user.id,
        nodes: [{ id: 'n1', name: 'used_box', sandbox: id }],
        edges: [{ id: 'e1', from: 'start', to: 'n1', type: 'start' }],
      },
    };
    await env.api.createNamespacedCustomObject({
      group: 'sandflow.io',
      version: 'v1alpha1',
      plural: 'workflows',
      namespace,
      body: workflow,
    });
    const read = () =>
      env.api.getNamespacedCustomObject({
        group: 'sandflow.io',
        version: 'v1alpha1',
        plural: 'workflows',
        namespace,
        name: 'uses-box',
      }) as Promise<Workflow>;
    await until(async () => (await read()).status?.valid === true);
    // The API's cache has the workflow once the operator's status write is seen there too.
    await until(() => servicesFor(deps).resources!.workflows.get(namespace, 'uses-box'));

    const kept = await call(world.a.target, 'DELETE', '/sandbox', { sandboxes: [id] });
    expect(kept.body.result).toEqual({
      deleted_sandbox: [],
      workflows: [{ uuid: 'uses-box', name: 'uses_box', sandboxes: [id] }],
    });
    const forced = await call(world.a.target, 'DELETE', '/sandbox?force=true', { sandboxes: [id] });
    expect(forced.body.result.deleted_sandbox).toEqual([id]);

    const invalid = await until(async () => {
      const status = (await read()).status;
      return status?.valid === false ? status : undefined;
    });
    expect(JSON.stringify(invalid)).toContain('The sandbox does not exist');
  });
});
