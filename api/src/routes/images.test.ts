import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LayoutStore, RegistryStore } from '@sandflow/images';
import {
  fixtureImage,
  freePort,
  pushFixture,
  registryMissing,
  startRegistry,
  type TestRegistry,
} from '@sandflow/images/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../authorization.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';

const missing = registryMissing({ auth: true });
if (missing) console.warn(`images.test.ts skipped: ${missing}`);

const USERS = { robot: 'robot-secret' };
let open: TestRegistry;
let locked: TestRegistry;
let layoutDir: string;
let h: Harness;
let w: World;

beforeAll(async () => {
  if (missing) return;
  [open, locked] = await Promise.all([startRegistry(), startRegistry({ users: USERS })]);
  const image = fixtureImage();
  const plain = new RegistryStore({ host: open.host });
  for (const tag of ['1.0', '1.2', 'latest']) await pushFixture(plain, 'team/tool', image, tag);
  const guarded = new RegistryStore({
    host: locked.host,
    credentials: { username: 'robot', password: USERS.robot },
  });
  await pushFixture(guarded, 'team/tool', image, '9.9');
  layoutDir = await mkdtemp(join(tmpdir(), 'sandflow-api-layout-'));
  const layout = new LayoutStore(layoutDir);
  await pushFixture(layout, `${open.host}/team/tool`, image, '2.0-local');
  await pushFixture(layout, `${open.host}/only/local`, image, '1');
  h = await createHarness({ images: { layout, timeoutMs: 5000 } });
}, 120_000);
beforeEach(async () => {
  if (missing) return;
  await h.reset();
  w = await createWorld(h.db);
});
afterAll(async () => {
  if (missing) return;
  await h.close();
  await Promise.all([open.stop(), locked.stop(), rm(layoutDir, { recursive: true, force: true })]);
});

const setOrgRegistry = (orgId: string, registry: object) =>
  h
    .db('organizations')
    .where({ id: orgId })
    .update({ registry: JSON.stringify(registry) });
const setDefaultRegistry = (url: string, username = '', password = '') =>
  h.db('platform_settings').insert({ key: 'registry', value: JSON.stringify({ url, username, password }) });

const callerOf = (role: Role) =>
  ({ admin: w.superAdmin, organization_admin: w.a.orgAdmin, group_admin: w.a.groupAdmin, user: w.a.user })[
    role
  ];

async function check(name: string, role: Role = 'user') {
  return h.request
    .get(`/api/v0/image/${encodeURIComponent(name)}`)
    .set('Authorization', `Bearer ${await h.tokenFor(callerOf(role).id, w.a.org.id)}`);
}

const versions = (body: { result: { versions: { value: string }[] } }) =>
  body.result.versions.map((v) => v.value);

describe.skipIf(!!missing)('GET /image/:name', () => {
  it.each(ROLES)("lists the organization registry's tags and the local store's, as %s", async (role) => {
    await setOrgRegistry(w.a.org.id, { use_custom: true, url: `http://${open.host}/` });
    const res = await check('team/tool', role);
    expect(res.body.error).toBeUndefined();
    expect(res.body.result).toEqual({
      image: `${open.host}/team/tool`,
      registry: open.host,
      versions: [{ value: '1.0' }, { value: '1.2' }, { value: '2.0-local' }, { value: 'latest' }],
    });
  });

  it('uses the platform default registry when the organization has none, and ignores a tag in the name', async () => {
    await setDefaultRegistry(open.host);
    const res = await check('team/tool:1.0');
    expect(res.status).toBe(200);
    expect(versions(res.body)).toEqual(['1.0', '1.2', '2.0-local', 'latest']);
  });

  it('takes a name that names its registry as is', async () => {
    const res = await check(`${open.host}/team/tool`);
    expect(res.status).toBe(200);
    expect(res.body.result.image).toBe(`${open.host}/team/tool`);
  });

  it("authenticates with the organization registry's credentials; wrong ones are a 502 naming the registry", async () => {
    await setOrgRegistry(w.a.org.id, {
      use_custom: true,
      url: locked.host,
      username: 'robot',
      password: USERS.robot,
    });
    const ok = await check('team/tool');
    expect(ok.status).toBe(200);
    expect(versions(ok.body)).toEqual(['9.9']);
    await setOrgRegistry(w.a.org.id, {
      use_custom: true,
      url: locked.host,
      username: 'robot',
      password: 'wrong',
    });
    const refused = await check('team/tool');
    expect(refused.status).toBe(502);
    expect(refused.body.error.message).toContain(`${locked.host} refused the credentials`);
  });

  it('answers 404 naming an image neither the registry nor the local store has', async () => {
    await setOrgRegistry(w.a.org.id, { use_custom: true, url: open.host });
    const res = await check('team/nothing');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('Image team/nothing not found');
  });

  it('answers 502 naming a registry that is down, unless the local store has the image', async () => {
    const down = `127.0.0.1:${await freePort()}`;
    await setOrgRegistry(w.a.org.id, { use_custom: true, url: down });
    const res = await check('team/tool');
    expect(res.status).toBe(502);
    expect(res.body.error.message).toContain(`the registry ${down} cannot be reached`);

    await setOrgRegistry(w.a.org.id, { use_custom: true, url: open.host });
    await open.stop();
    try {
      const offline = await check('only/local');
      expect(offline.status).toBe(200);
      expect(versions(offline.body)).toEqual(['1']);
      expect(offline.body.result.warning).toContain('cannot be reached');
    } finally {
      open = await restart();
    }
  });

  it("serves the local store's base images and the organization's own commits, never another organization's", async () => {
    const layout = new LayoutStore(layoutDir);
    const image = fixtureImage();
    await pushFixture(layout, 'sandflow.local/busybox', image, '1.36');
    await pushFixture(layout, `sandflow.local/${w.a.org.slug}/mine`, image, '1.0.0');
    await pushFixture(layout, `sandflow.local/${w.b.org.slug}/secret`, image, '1.0.0');
    await setDefaultRegistry(open.host);
    await pushFixture(new RegistryStore({ host: open.host }), `${w.b.org.slug}/shared`, image, '2.0');

    expect(versions((await check('sandflow.local/busybox')).body)).toEqual(['1.36']);
    expect(versions((await check(`sandflow.local/${w.a.org.slug}/mine`)).body)).toEqual(['1.0.0']);
    for (const name of [`sandflow.local/${w.b.org.slug}/secret`, `${w.b.org.slug}/shared`]) {
      const res = await check(name);
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe(`Image ${name} not found`);
    }
    // The same names are Beta's own.
    const beta = await h.request
      .get(`/api/v0/image/${encodeURIComponent(`${w.b.org.slug}/shared`)}`)
      .set('Authorization', `Bearer ${await h.tokenFor(w.b.user.id, w.b.org.id)}`);
    expect(versions(beta.body)).toEqual(['2.0']);
  });

  it.each([
    ['upper case', 'Team/Tool', 400, 'must be lower-case'],
    ['a NUL byte', 'team\0tool', 400, 'name: must not contain NUL'],
    ['a bad tag', 'team/tool:-x', 400, 'is not a valid tag'],
    ['a name over 300 characters', 'a'.repeat(301), 400, 'name: at most 300 characters'],
  ])('refuses %s with a 4xx naming it', async (_case, name, status, message) => {
    const res = await check(name);
    expect(res.status).toBe(status);
    expect(res.body.error.message).toContain(message);
  });
});

/** The registry again on a new port, with what the tests need pushed. */
async function restart(): Promise<TestRegistry> {
  const registry = await startRegistry();
  const image = fixtureImage();
  for (const tag of ['1.0', '1.2', 'latest'])
    await pushFixture(new RegistryStore({ host: registry.host }), 'team/tool', image, tag);
  return registry;
}
