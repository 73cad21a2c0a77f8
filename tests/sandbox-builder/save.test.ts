// Save on the sandbox page, end to end: a container from busybox, a file uploaded, POST /sandbox
// with its id commits it to Alpha's registry and records ref@digest in the Sandbox resource;
// POST /image/{uuid} starts the saved sandbox again and the file is there.
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { Sandbox } from '@sandflow/crds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE, builderMissing, openTerminal, startPlatform, type Platform } from './platform.js';

const missing = builderMissing();
let p: Platform;

beforeAll(async () => {
  if (missing) return;
  p = await startPlatform({}, { kube: true });
}, 120_000);
afterAll(() => p?.stop());

describe.skipIf(!!missing)('Save with the bwrap builder', () => {
  it('commits the container into the Sandbox and starts the saved sandbox again', async () => {
    const { a } = p.world;
    const auth = `Bearer ${await p.token(a.user.id, a.org.id)}`;
    const started = await p.request
      .post('/api/v0/image')
      .set('Authorization', auth)
      .send({ ...SOURCE, name: 'greeter' });
    expect(started.body.error).toBeUndefined();
    const container = started.body.result as string;
    await p.request
      .put(`/api/v0/container/${container}/archive`)
      .set('Authorization', auth)
      .attach('file', Buffer.from('echo hello from the saved sandbox\n'), 'hello.sh');

    const saved = await p.request
      .post('/api/v0/sandbox')
      .set('Authorization', auth)
      .send({
        name: 'greeter',
        version: '1.0.0',
        entrypoint: 'sh hello.sh',
        constraints: { cpu: 500, memory: 512, disk: 100 },
        source_image: { image: SOURCE.source_image, version: SOURCE.source_version },
        container_id: container,
      });
    expect(saved.body.error).toBeUndefined();
    expect(saved.status).toBe(201);
    const uuid = saved.body.result.uuid as string;

    const custom =
      p.deps.kube && 'makeApiClient' in p.deps.kube ? p.deps.kube.makeApiClient(CustomObjectsApi) : null;
    const cr = (await custom!.getNamespacedCustomObject({
      group: 'sandflow.io',
      version: 'v1alpha1',
      namespace: `sf-${a.org.slug}`,
      plural: 'sandboxes',
      name: uuid,
    })) as Sandbox;
    expect(cr.spec.image?.ref).toMatch(
      new RegExp(
        `^${p.registry.host.replace(/\./g, '\\.')}/${a.org.slug}/greeter:1\\.0\\.0@sha256:[a-f0-9]{64}$`,
      ),
    );
    await p.request.delete(`/api/v0/image/${container}`).set('Authorization', auth);

    const again = await p.request
      .post(`/api/v0/image/${uuid}`)
      .set('Authorization', auth)
      .send({ sandbox_name: 'greeter' });
    expect(again.body.error).toBeUndefined();
    expect(p.builder.get(again.body.result as string)?.image).toBe(cr.spec.image?.ref);
    const term = await openTerminal(p.base, again.body.result as string, await p.token(a.user.id, a.org.id));
    term.run('sh hello.sh');
    await term.waitFor(/\r\nhello from the saved sandbox\r\n/);
    await p.request.delete(`/api/v0/image/${again.body.result as string}`).set('Authorization', auth);

    // Another organization's member cannot start it: the sandbox is not theirs to see.
    const beta = await p.request
      .post(`/api/v0/image/${uuid}`)
      .set('Authorization', `Bearer ${await p.token(p.world.b.user.id, p.world.b.org.id)}`)
      .send({ sandbox_name: 'greeter' });
    expect(beta.status).toBe(404);
  });
});
