import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, KubeConfig, Watch, type V1Secret } from '@kubernetes/client-node';
import { secretsKeyId } from '@sandflow/kube';
import type { Knex } from 'knex';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../db/database.js';
import type { KubeLiteEncryption } from './encryption.js';
import { startKubeLite, type KubeLite } from './index.js';

const KEY = randomBytes(32);
const NEW_KEY = randomBytes(32);
const PASSWORD = 'hunter2-registry-password';
const PASSWORD_B64 = Buffer.from(PASSWORD).toString('base64');
const NAMESPACE = 'default';
const rowKey = (name: string, resource = '/secrets') => `${resource}|${NAMESPACE}|${name}`;

let dir: string;
let db: Knex;
let running: KubeLite | undefined;
let logs: { msg: string; encrypted?: number; reencrypted?: number }[];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-lite-encryption-'));
  db = await createTestDatabase();
});

afterEach(async () => {
  await running?.close();
  running = undefined;
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts kube-lite on the test's database and data folder (the same token and certificate each time). */
async function boot(encryption: KubeLiteEncryption | undefined) {
  await running?.close();
  running = undefined;
  logs = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  running = await startKubeLite({ db, dataDir: dir, logger, encryption });
  const kc = new KubeConfig();
  kc.loadFromFile(running.kubeconfigPath!);
  return { kc, core: kc.makeApiClient(CoreV1Api) };
}

async function stop() {
  await running?.close();
  running = undefined;
}

const secret = (name: string): V1Secret => ({
  metadata: { name },
  type: 'Opaque',
  data: { username: Buffer.from('robot').toString('base64'), password: PASSWORD_B64 },
});

/** The row's body as PostgreSQL holds it (what a dump shows). */
async function storedBody(name: string, resource = '/secrets'): Promise<string> {
  const row = await db('kube_objects')
    .select(db.raw('body::text as body'))
    .where({ key: rowKey(name, resource) })
    .first();
  return (row as { body: string }).body;
}

function rewriteLog() {
  return logs.find((l) => l.msg.startsWith('secrets encrypted at rest'));
}

describe('kube-lite Secrets at rest', () => {
  it.each([
    { label: 'with a key', encryption: { key: KEY }, sealedBy: secretsKeyId(KEY) },
    { label: 'without a key (stored as before)', encryption: undefined, sealedBy: undefined },
  ])(
    '$label: a Secret created over HTTP is watched and read plain, stored accordingly, kept across a restart',
    { timeout: 120_000 },
    async ({ encryption, sealedBy }) => {
      const { kc, core } = await boot(encryption);
      const watched = new Promise<V1Secret>((resolve, reject) => {
        void new Watch(kc)
          .watch(
            `/api/v1/namespaces/${NAMESPACE}/secrets`,
            {},
            (type, obj: V1Secret) => {
              if (type === 'ADDED' && obj.metadata?.name === 'pull') resolve(obj);
            },
            (err) => err && reject(err),
          )
          .then(() => core.createNamespacedSecret({ namespace: NAMESPACE, body: secret('pull') }), reject);
      });
      const event = await watched;
      expect(event.data).toEqual(secret('pull').data);

      const stored = await storedBody('pull');
      if (sealedBy) {
        expect(JSON.parse(stored)).toMatch(new RegExp(`^sfenc:v1:${sealedBy}:`));
        expect(stored).not.toContain(PASSWORD);
        expect(stored).not.toContain(PASSWORD_B64);
        expect(stored).not.toContain('pull'); // no metadata in clear either, as with kube-apiserver
      } else {
        expect(JSON.parse(stored)).toMatchObject({ kind: 'Secret', data: { password: PASSWORD_B64 } });
      }
      const read = await core.readNamespacedSecret({ name: 'pull', namespace: NAMESPACE });
      expect(read.data).toEqual(secret('pull').data);
      const created = read.metadata!;

      await stop();
      const again = await boot(encryption);
      const reread = await again.core.readNamespacedSecret({ name: 'pull', namespace: NAMESPACE });
      expect(reread.data).toEqual(secret('pull').data);
      expect(reread.metadata).toMatchObject({ uid: created.uid, resourceVersion: created.resourceVersion });
      const listed = await again.core.listNamespacedSecret({ namespace: NAMESPACE });
      expect(listed.items.find((s) => s.metadata?.name === 'pull')?.data).toEqual(secret('pull').data);
      expect(await storedBody('pull')).toBe(stored); // nothing rewritten: already as it should be
      if (sealedBy) expect(rewriteLog()).toMatchObject({ encrypted: 0, reencrypted: 0 });
      else expect(rewriteLog()).toBeUndefined();
    },
  );

  it.each([
    {
      label: 'Secrets stored in clear before are encrypted at start',
      before: undefined,
      after: { key: NEW_KEY },
      counts: { encrypted: 1, reencrypted: 0 },
    },
    {
      label: 'Secrets under the previous key are encrypted again under the current one',
      before: { key: KEY },
      after: { key: NEW_KEY, previous: KEY },
      counts: { encrypted: 0, reencrypted: 1 },
    },
  ])('$label, once (logged with a count)', { timeout: 120_000 }, async ({ before, after, counts }) => {
    const first = await boot(before);
    await first.core.createNamespacedSecret({ namespace: NAMESPACE, body: secret('pull') });
    const config = await first.core.createNamespacedConfigMap({
      namespace: NAMESPACE,
      body: { metadata: { name: 'plain' }, data: { a: '1' } },
    });
    const rv = (await first.core.readNamespacedSecret({ name: 'pull', namespace: NAMESPACE })).metadata!
      .resourceVersion;
    await stop();

    const second = await boot(after);
    expect(rewriteLog()).toMatchObject(counts);
    const stored = await storedBody('pull');
    expect(JSON.parse(stored)).toMatch(new RegExp(`^sfenc:v1:${secretsKeyId(NEW_KEY)}:`));
    expect(stored).not.toContain(PASSWORD_B64);
    const read = await second.core.readNamespacedSecret({ name: 'pull', namespace: NAMESPACE });
    expect(read.data).toEqual(secret('pull').data);
    expect(read.metadata?.resourceVersion).toBe(rv); // the object did not change, its storage did
    // Other resources are stored as they are.
    expect(JSON.parse(await storedBody('plain', '/configmaps'))).toMatchObject({ data: config.data });

    // Only the current key now: nothing left to rewrite, the row stays as it is.
    await boot({ key: NEW_KEY });
    expect(rewriteLog()).toMatchObject({ encrypted: 0, reencrypted: 0 });
    expect(await storedBody('pull')).toBe(stored);
  });

  it.each([
    {
      label: 'a key that did not encrypt it',
      encryption: { key: NEW_KEY } as KubeLiteEncryption | undefined,
      tamper: async () => {},
      name: 'pull',
      message: `which is neither SANDFLOW_SECRETS_KEY (${secretsKeyId(NEW_KEY)}) nor SANDFLOW_SECRETS_KEY_PREVIOUS (not set)`,
    },
    {
      label: 'no key',
      encryption: undefined,
      tamper: async () => {},
      name: 'pull',
      message: `it was encrypted with key ${secretsKeyId(KEY)} and SANDFLOW_SECRETS_KEY is not set`,
    },
    {
      label: "another Secret's encrypted body copied onto its row",
      encryption: { key: KEY },
      tamper: async () => {
        const source = await storedBody('pull');
        await db('kube_objects')
          .where({ key: rowKey('other') })
          .update({ body: db.raw('?::jsonb', [source]) });
      },
      name: 'other',
      message: 'does not authenticate',
    },
  ])(
    'refuses to start, naming the Secret, when it cannot be decrypted: $label',
    { timeout: 120_000 },
    async ({ encryption, tamper, name, message }) => {
      const first = await boot({ key: KEY });
      await first.core.createNamespacedSecret({ namespace: NAMESPACE, body: secret('pull') });
      await first.core.createNamespacedSecret({ namespace: NAMESPACE, body: secret('other') });
      await stop();
      await tamper();

      const started = boot(encryption);
      await expect(started).rejects.toThrow(`the stored Secret ${NAMESPACE}/${name} cannot be decrypted`);
      await expect(started).rejects.toThrow(message);
      await expect(started).rejects.not.toThrow(PASSWORD_B64);
    },
  );
});
