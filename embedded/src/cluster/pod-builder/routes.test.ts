// The sandbox page's builder routes with the cluster-mode builder as the cluster-mode API wires it
// (podBuilderFor): the API in-process over kube-lite with its kubelet, Alpha's registry a Debian
// docker-registry holding Debian's busybox-static image as team/busybox:1.36 (the kubelet's test
// fixture). Create starts a Pod in Alpha's namespace
// as the member's UID, the terminal socket reaches its shell through pods/exec, an upload lands in
// it, Save commits it into a Sandbox whose image starts again with the file, and leaving the page
// deletes the Pod.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  attachTerminal,
  closeServices,
  createApp,
  createMailer,
  defaultApiConfig,
  servicesFor,
  type ApiDeps,
} from '@sandflow/api';
import { createTestDatabase, createWorld, type World } from '@sandflow/api/testing';
import { CRD_DIR, type Sandbox } from '@sandflow/crds';
import { LayoutStore } from '@sandflow/images';
import type { Knex } from 'knex';
import pino from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds, readCrds } from '../../crd-install.js';
import { kubeletMissing, setUp, type Fixture, type Node } from '../../kube-lite/kubelet/test-fixture.js';
import type { PodBuilder } from './pod-builder.js';
import { podBuilderFor } from './wiring.js';
import { openTerminalSocket } from '../../testing/terminal-output.js';

const missing = kubeletMissing;
if (missing.length > 0)
  console.warn(`pod builder route tests skipped: ${missing.join(' and ')} not installed`);

const SOURCE = { source_image: 'team/busybox', source_version: '1.36' };
let fixture: Fixture;
let node: Node;
let kc: KubeConfig;
let db: Knex;
let world: World;
let deps: ApiDeps;
let builder: PodBuilder;
let server: Server;
let terminal: { close(): void };
let request: ReturnType<typeof supertest>;
let base: string;

const token = (user: { id: string }, org: { id: string }) =>
  servicesFor(deps).tokens.signAccessToken({ userId: user.id, organizationId: org.id });

/** The page's side of the terminal socket (raw text both ways). */
const openTerminal = (container: string, access: string) => openTerminalSocket(base, container, access, 800);

describe.skipIf(missing.length > 0)('builder routes with the cluster-mode builder', () => {
  beforeAll(async () => {
    fixture = await setUp('pod-builder-routes-', {
      reference: `${SOURCE.source_image}:${SOURCE.source_version}`,
    });
    const { tmp, registry } = fixture;
    node = await fixture.boot();
    ({ kc } = node);
    await installCrds(kc, readCrds(CRD_DIR));
    db = await createTestDatabase();
    world = await createWorld(db);
    await db('organizations')
      .where({ id: world.a.org.id })
      .update({ registry: JSON.stringify({ use_custom: true, url: `http://${registry.host}` }) });
    // The organizations' namespaces, as tenancy makes them when an organization is created.
    for (const org of [world.a.org, world.b.org])
      await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: `sf-${org.slug}` } } });
    const config = defaultApiConfig({ rateLimit: { windowMs: 60_000, perAccount: 1000, perAddress: 1000 } });
    deps = {
      db,
      kube: kc,
      logger: pino({ level: 'silent' }),
      mailer: createMailer({ db, from: config.mailFrom }),
      config,
      checkAnswers: true,
      images: { layout: new LayoutStore(path.join(tmp, 'api', 'images')) },
    };
    // The helper image: any image with a static /bin/busybox; the busybox image is one.
    builder = podBuilderFor(deps, {
      kubeConfig: kc,
      helperImage: fixture.image,
      dataDir: path.join(tmp, 'api'),
      startTimeoutMs: 60_000,
    });
    deps.builder = builder;
    const app = createApp(deps);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    terminal = attachTerminal(server, deps);
    request = supertest(app);
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    await Promise.all([builder.synced, servicesFor(deps).resources!.synced]);
  }, 180_000);

  afterAll(async () => {
    terminal?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
    await builder?.close();
    if (deps) await closeServices(deps);
    await db?.destroy();
    await node?.stop();
    await fixture?.cleanup();
  });

  it('Create, terminal, upload, Save, start the saved sandbox, leave', { timeout: 180_000 }, async () => {
    const { a, b } = world;
    const auth = `Bearer ${await token(a.user, a.org)}`;
    const started = await request
      .post('/api/v0/image')
      .set('Authorization', auth)
      .send({ ...SOURCE, name: 'greeter' });
    expect(started.body.error).toBeUndefined();
    const container = started.body.result as string;

    // A Pod in Alpha's namespace, as the member.
    const core = kc.makeApiClient(CoreV1Api);
    const pods = await core.listNamespacedPod({
      namespace: `sf-${a.org.slug}`,
      labelSelector: `sandflow.io/builder=${container}`,
    });
    expect(pods.items).toHaveLength(1);
    const uid = pods.items[0]!.spec!.securityContext!.runAsUser!;
    const term = await openTerminal(container, await token(a.user, a.org));
    term.run('echo $((6*7)); id -u');
    await term.waitFor(new RegExp(`\\r\\n42\\r\\n${uid}\\r\\n`));

    // Uploads go where the member may write (the shell runs as them): /tmp.
    const upload = await request
      .put(`/api/v0/container/${container}/archive`)
      .set('Authorization', auth)
      .field('path', '/tmp')
      .attach('file', Buffer.from('echo hello from the saved sandbox\n'), 'hello.sh');
    expect(upload.body.error).toBeUndefined();
    const there = await request
      .post(`/api/v0/container/${container}/archive`)
      .set('Authorization', auth)
      .send({ name: 'hello.sh', path: '/tmp' });
    expect(there.body.error).toBeUndefined();
    term.run('sh /tmp/hello.sh');
    await term.waitFor(/\r\nhello from the saved sandbox\r\n/);
    term.socket.close();

    // Beta's member does not see Alpha's container.
    const foreign = await request
      .post(`/api/v0/container/${container}/archive`)
      .set('Authorization', `Bearer ${await token(b.user, b.org)}`)
      .send({ name: 'hello.sh', path: '/tmp' });
    expect(foreign.status).toBe(404);

    const saved = await request
      .post('/api/v0/sandbox')
      .set('Authorization', auth)
      .send({
        name: 'greeter',
        version: '1.0.0',
        entrypoint: 'sh /tmp/hello.sh',
        constraints: { cpu: 500, memory: 512, disk: 100 },
        source_image: { image: SOURCE.source_image, version: SOURCE.source_version },
        container_id: container,
      });
    expect(saved.body.error).toBeUndefined();
    expect(saved.status).toBe(201);
    const cr = (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'sandflow.io',
      version: 'v1alpha1',
      namespace: `sf-${a.org.slug}`,
      plural: 'sandboxes',
      name: saved.body.result.uuid as string,
    })) as Sandbox;
    expect(cr.spec.image?.ref).toMatch(
      new RegExp(
        `^${fixture.registry.host.replace(/\./g, '\\.')}/${a.org.slug}/greeter:1\\.0\\.0@sha256:[a-f0-9]{64}$`,
      ),
    );

    const left = await request.delete(`/api/v0/image/${container}`).set('Authorization', auth);
    expect(left.body.error).toBeUndefined();
    expect(
      (
        await core.listNamespacedPod({
          namespace: `sf-${a.org.slug}`,
          labelSelector: `sandflow.io/builder=${container}`,
        })
      ).items,
    ).toEqual([]);

    // The saved sandbox starts again from its pushed image, the file in it.
    const again = await request
      .post(`/api/v0/image/${saved.body.result.uuid as string}`)
      .set('Authorization', auth)
      .send({ sandbox_name: 'greeter' });
    expect(again.body.error).toBeUndefined();
    const second = again.body.result as string;
    expect(builder.get(second)?.image).toBe(cr.spec.image?.ref);
    const term2 = await openTerminal(second, await token(a.user, a.org));
    term2.run('sh /tmp/hello.sh');
    await term2.waitFor(/\r\nhello from the saved sandbox\r\n/);
    term2.socket.close();
    await request.delete(`/api/v0/image/${second}`).set('Authorization', auth);
    expect(builder.get(second)).toBeUndefined();
  });
});
