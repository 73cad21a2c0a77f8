import { CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { startTestKube, type TestKube } from '../resources/test-kube.js';
import { createHarness, TEST_SECRETS_KEY, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';
import {
  nextRegistry,
  openRegistry,
  REDACTED,
  REGISTRY_SECRET,
  type RegistryInput,
  type StoredRegistry,
} from './clusters-registry.js';
import { servicesFor } from './index.js';
import { createSecretBox, isSealed } from './secret-box.js';

const KEY = Buffer.alloc(32, 1);
const URL_ = 'https://registry.example.org';

describe('nextRegistry: what is stored after a save (the password sealed)', () => {
  const box = createSecretBox({ key: KEY });
  const noKey = createSecretBox();
  const sealed = box.seal('old-pw', 'registry.password');
  const account = (password?: string): StoredRegistry => ({
    use_custom: true,
    url: URL_,
    username: 'robot',
    ...(password !== undefined ? { password } : {}),
  });
  const input = (password?: string, username = 'robot'): RegistryInput => ({
    use_custom: true,
    url: `${URL_}/`,
    username,
    password,
  });

  it.each([
    ['a new password is sealed', box, null, input('new-pw'), 'new-pw', 'sealed'],
    ['the mask keeps the sealed password as it is', box, account(sealed), input(REDACTED), 'old-pw', sealed],
    ['nothing sent keeps it too', box, account(sealed), input(undefined), 'old-pw', sealed],
    [
      'a kept password saved in clear is sealed now',
      box,
      account('old-pw'),
      input(REDACTED),
      'old-pw',
      'sealed',
    ],
    [
      'without a key a kept password in clear stays as it is',
      noKey,
      account('old-pw'),
      input(REDACTED),
      'old-pw',
      'old-pw',
    ],
    ['a new password replaces a sealed one', box, account(sealed), input('new-pw'), 'new-pw', 'sealed'],
    [
      'a new username without a password drops it',
      box,
      account(sealed),
      input('', 'other'),
      undefined,
      undefined,
    ],
  ] as const)('%s', (_case, secrets, stored, body, opened, expected) => {
    const next = nextRegistry(stored, body, secrets);
    expect(next).toMatchObject({ use_custom: true, url: URL_ });
    if (expected === 'sealed') expect(secrets.isCurrent(next.password!)).toBe(true);
    else expect(next.password).toBe(expected);
    expect(openRegistry(next, secrets, 'organization acme').password).toBe(opened);
  });

  it.each([
    [
      'a new password without a key: 422 naming registry.password and SANDFLOW_SECRETS_KEY',
      noKey,
      null,
      input('new-pw'),
      /^registry\.password: cannot be stored: the server has no SANDFLOW_SECRETS_KEY/,
    ],
    [
      'the mask with a new username',
      box,
      account(sealed),
      input(REDACTED, 'other'),
      /^registry\.password: enter the password again/,
    ],
    ['a password without a username', box, null, input('new-pw', ''), /^registry\.username: needed/],
  ] as const)('refuses %s', (_case, secrets, stored, body, message) => {
    let error: unknown;
    try {
      nextRegistry(stored, body, secrets);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'invalid', message: expect.stringMatching(message) });
    expect((error as Error).message).not.toContain('new-pw');
  });

  it('back to the platform registry keeps nothing', () => {
    expect(nextRegistry(account(sealed), { use_custom: false }, box)).toEqual({ use_custom: false });
  });
});

describe('registry passwords through the API: sealed in the database, opened for the pull Secret', () => {
  let kube: TestKube;
  let core: CoreV1Api;
  /** With SANDFLOW_SECRETS_KEY (the harness's test key) and without one. */
  let keyed: Harness;
  let bare: Harness;
  let w: World;
  let wBare: World;

  beforeAll(async () => {
    kube = await startTestKube();
    core = kube.kubeConfig.makeApiClient(CoreV1Api);
    keyed = await createHarness({ kube: kube.kubeConfig });
    bare = await createHarness({
      kube: kube.kubeConfig,
      config: { secrets: { key: undefined, previousKey: undefined } },
    });
  }, 60_000);
  afterAll(async () => {
    await keyed?.close();
    await bare?.close();
    await kube?.close();
  });
  beforeEach(async () => {
    await keyed.reset();
    await bare.reset();
    w = await createWorld(keyed.db);
    wBare = await createWorld(bare.db);
    // Both worlds name their organizations Alpha and Beta: one namespace sf-alpha for both.
    await servicesFor(keyed.deps).kube.syncOrganization(w.a.org);
    await core
      .deleteNamespacedSecret({ namespace: `sf-${w.a.org.slug}`, name: REGISTRY_SECRET })
      .catch(() => undefined);
  });

  const call = async (
    h: Harness,
    world: World,
    method: 'put' | 'post' | 'get',
    path: string,
    body?: object,
  ) => {
    const who = path.startsWith('/illumina') ? world.superAdmin : world.a.orgAdmin;
    const req = h.request[method](`/api/v0${path}`).set(
      'Authorization',
      `Bearer ${await h.tokenFor(who.id, world.a.org.id)}`,
    );
    return body ? req.send(body) : req;
  };
  const saveRegistry = (h: Harness, world: World, registry: object) =>
    call(h, world, 'put', `/organizations/${world.a.org.id}/registry`, { registry });
  const pullSecretPassword = async (namespace: string) => {
    const secret = (await core.readNamespacedSecret({ namespace, name: REGISTRY_SECRET })) as V1Secret;
    const config = JSON.parse(Buffer.from(secret.data!['.dockerconfigjson']!, 'base64').toString()) as {
      auths: Record<string, { password: string }>;
    };
    return config.auths['registry.example.org']!.password;
  };
  const storedRegistry = async (h: Harness, id: string) =>
    (await h.db('organizations').where({ id }).first('registry')).registry as StoredRegistry;

  it('PUT /organizations/{id}/registry: the row holds no plaintext, the namespace Secret the right password', async () => {
    const res = await saveRegistry(keyed, w, {
      use_custom: true,
      url: URL_,
      username: 'robot',
      password: 's3cret-pw',
    });
    expect(res.status).toBe(200);
    expect(res.body.result.registry.password).toBe(REDACTED);

    const stored = await storedRegistry(keyed, w.a.org.id);
    expect(isSealed(stored.password!)).toBe(true);
    expect(JSON.stringify(await keyed.db('organizations').select())).not.toContain('s3cret-pw');
    expect(createSecretBox({ key: TEST_SECRETS_KEY }).open(stored.password!, 'registry.password')).toBe(
      's3cret-pw',
    );
    expect(await pullSecretPassword(`sf-${w.a.org.slug}`)).toBe('s3cret-pw');
    // The builder's pulls and pushes get it opened too.
    const credentials = await servicesFor(keyed.deps).images.credentialsOf(w.a.org.id);
    expect(credentials.get('registry.example.org')).toEqual({ username: 'robot', password: 's3cret-pw' });

    // Saved again with the mask: the same envelope stays, the Secret keeps the password.
    const again = await saveRegistry(keyed, w, {
      use_custom: true,
      url: URL_,
      username: 'robot',
      password: REDACTED,
    });
    expect(again.status).toBe(200);
    expect((await storedRegistry(keyed, w.a.org.id)).password).toBe(stored.password);
    expect(await pullSecretPassword(`sf-${w.a.org.slug}`)).toBe('s3cret-pw');
  });

  it('without SANDFLOW_SECRETS_KEY a new password is refused (422) and nothing is written', async () => {
    const before = await storedRegistry(bare, wBare.a.org.id);
    const res = await saveRegistry(bare, wBare, {
      use_custom: true,
      url: URL_,
      username: 'robot',
      password: 's3cret-pw',
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'secrets_key_missing' });
    expect(res.body.error.message).toMatch(/^registry\.password: .*SANDFLOW_SECRETS_KEY/);
    expect(await storedRegistry(bare, wBare.a.org.id)).toEqual(before);
    await expect(
      core.readNamespacedSecret({ namespace: `sf-${wBare.a.org.slug}`, name: REGISTRY_SECRET }),
    ).rejects.toThrow();
  });

  it('without SANDFLOW_SECRETS_KEY a password saved in clear before keeps working', async () => {
    await bare
      .db('organizations')
      .where({ id: wBare.a.org.id })
      .update({
        registry: JSON.stringify({ use_custom: true, url: URL_, username: 'robot', password: 'legacy-pw' }),
      });
    const res = await saveRegistry(bare, wBare, {
      use_custom: true,
      url: URL_,
      username: 'robot',
      password: REDACTED,
    });
    expect(res.status).toBe(200);
    expect((await storedRegistry(bare, wBare.a.org.id)).password).toBe('legacy-pw');
    expect(await pullSecretPassword(`sf-${wBare.a.org.slug}`)).toBe('legacy-pw');
    const credentials = await servicesFor(bare.deps).images.credentialsOf(wBare.a.org.id);
    expect(credentials.get('registry.example.org')).toEqual({ username: 'robot', password: 'legacy-pw' });
  });

  it('POST /illumina/configuration: the platform default registry password is sealed too', async () => {
    const registry = { url: 'https://default.example.org', username: 'bot', password: 'default-pw' };
    const res = await call(keyed, w, 'post', '/illumina/configuration', { registry });
    expect(res.status).toBe(200);
    expect(res.body.result.registry).toEqual({ ...registry, password: REDACTED });
    const row = await keyed.db('platform_settings').where({ key: 'registry' }).first('value');
    expect(isSealed((row.value as { password: string }).password)).toBe(true);
    expect(JSON.stringify(row)).not.toContain('default-pw');
    // The organization has no registry of its own: the default one's account, opened.
    const credentials = await servicesFor(keyed.deps).images.credentialsOf(w.a.org.id);
    expect(credentials.get('default.example.org')).toEqual({ username: 'bot', password: 'default-pw' });
    // Another field saved without the password: the envelope stays.
    const flag = await call(keyed, w, 'post', '/illumina/configuration', {
      registry: { url: registry.url, username: 'bot' },
    });
    expect(flag.status).toBe(200);
    expect((await keyed.db('platform_settings').where({ key: 'registry' }).first('value')).value).toEqual(
      row.value,
    );

    const refused = await call(bare, wBare, 'post', '/illumina/configuration', { registry });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/^registry\.password: .*SANDFLOW_SECRETS_KEY/);
    expect(await bare.db('platform_settings').where({ key: 'registry' }).first()).toBeUndefined();
  });

  it('a password sealed under a key the API does not have: a 503 naming it, never its value', async () => {
    const foreign = createSecretBox({ key: KEY }).seal('foreign-pw', 'registry.password');
    await keyed
      .db('organizations')
      .where({ id: w.a.org.id })
      .update({
        registry: JSON.stringify({ use_custom: true, url: URL_, username: 'robot', password: foreign }),
      });
    const res = await saveRegistry(keyed, w, {
      use_custom: true,
      url: URL_,
      username: 'robot',
      password: REDACTED,
    });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('secret_unreadable');
    expect(res.body.error.message).toMatch(
      /^registry\.password: cannot be decrypted: it was encrypted with key/,
    );
    expect(JSON.stringify(res.body)).not.toContain('foreign-pw');
    await expect(servicesFor(keyed.deps).images.credentialsOf(w.a.org.id)).rejects.toThrow(
      /^registry\.password of organization alpha: cannot be decrypted/,
    );
  });
});
