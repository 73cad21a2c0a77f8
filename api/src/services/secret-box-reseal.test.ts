import type { Knex } from 'knex';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, destroyTestDatabase } from '../test-support/database.js';
import { createSecretBox, isSealed } from './secret-box.js';
import { resealStoredSecrets } from './secret-box-reseal.js';

const KEY = Buffer.alloc(32, 1);
const OLD_KEY = Buffer.alloc(32, 2);
const STRANGER_KEY = Buffer.alloc(32, 3);
const WHAT = 'registry.password';

/** A pino logger whose lines are kept. */
function recordingLogger() {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) },
  );
  return { logger, lines };
}

let db: Knex;
beforeAll(async () => {
  db = await createTestDatabase();
}, 30_000);
afterAll(() => destroyTestDatabase(db));
beforeEach(async () => {
  await db('organizations').del();
  await db('platform_settings').del();
});

/** Organizations org-0…org-(n-1) whose registry passwords are `passwords[i]` ('' or null: none). */
async function organizations(passwords: (string | null)[]) {
  await db('organizations').insert(
    passwords.map((password, i) => ({
      name: `Org ${i}`,
      slug: `org-${i}`,
      registry: JSON.stringify(
        password === null
          ? { use_custom: false }
          : { use_custom: true, url: 'https://registry.example.org', username: 'robot', password },
      ),
    })),
  );
}
const storedPasswords = async () =>
  (await db('organizations').orderBy('slug').select('registry')).map(
    (r) => (r.registry as { password?: string }).password ?? null,
  );
async function platformRegistry(password: string) {
  await db('platform_settings').insert({
    key: 'registry',
    value: JSON.stringify({ url: 'https://default.example.org', username: 'bot', password }),
  });
}
const storedPlatformPassword = async () =>
  ((await db('platform_settings').where({ key: 'registry' }).first('value')).value as { password: string })
    .password;

describe('resealStoredSecrets: the startup step', () => {
  it('seals every password saved in clear, in pages, keeping the rest of the row; a second run does nothing', async () => {
    const plain = ['pw-0', 'pw-1', null, 'pw-3', '', 'pw-5', 'pw-6'];
    await organizations(plain);
    await platformRegistry('default-pw');
    const secrets = createSecretBox({ key: KEY });
    const { logger, lines } = recordingLogger();

    const counts = await resealStoredSecrets({ db, secrets, logger, batch: 2 });
    expect(counts).toEqual({ sealed: 6, resealed: 0, unreadable: 0, inClear: 0 });
    const stored = await storedPasswords();
    stored.forEach((value, i) => {
      if (!plain[i]) expect(value).toBe(plain[i]);
      else {
        expect(secrets.isCurrent(value!)).toBe(true);
        expect(secrets.open(value!, WHAT)).toBe(plain[i]);
      }
    });
    expect(JSON.stringify(await db('organizations').select())).not.toMatch(/pw-\d/);
    const row = await db('organizations').where({ slug: 'org-0' }).first('registry');
    expect(row.registry).toMatchObject({
      use_custom: true,
      url: 'https://registry.example.org',
      username: 'robot',
    });
    expect(secrets.open(await storedPlatformPassword(), WHAT)).toBe('default-pw');
    expect(lines.find((l) => l.msg.startsWith('stored registry passwords encrypted'))).toMatchObject({
      sealed: 6,
      resealed: 0,
      unreadable: 0,
      keyId: secrets.keyId,
    });

    const before = JSON.stringify(await db('organizations').orderBy('slug').select('registry'));
    expect(await resealStoredSecrets({ db, secrets, logger, batch: 2 })).toEqual({
      sealed: 0,
      resealed: 0,
      unreadable: 0,
      inClear: 0,
    });
    expect(JSON.stringify(await db('organizations').orderBy('slug').select('registry'))).toBe(before);
  });

  it('moves what the previous key sealed under the new key (rotation); the old key alone no longer opens it', async () => {
    const old = createSecretBox({ key: OLD_KEY });
    await organizations([old.seal('pw-a', WHAT), 'pw-b', old.seal('pw-c', WHAT)]);
    await platformRegistry(old.seal('default-pw', WHAT));
    const rotated = createSecretBox({ key: KEY, previousKey: OLD_KEY });

    const counts = await resealStoredSecrets({ db, secrets: rotated, logger: pino({ level: 'silent' }) });
    expect(counts).toEqual({ sealed: 1, resealed: 3, unreadable: 0, inClear: 0 });
    const newOnly = createSecretBox({ key: KEY });
    expect((await storedPasswords()).map((p) => newOnly.open(p!, WHAT))).toEqual(['pw-a', 'pw-b', 'pw-c']);
    expect(newOnly.open(await storedPlatformPassword(), WHAT)).toBe('default-pw');
    const [first] = await storedPasswords();
    expect(() => old.open(first!, WHAT)).toThrow(/cannot be decrypted/);
  });

  it('leaves a password no configured key opens as it is, and names its organization (not its value) in the log', async () => {
    const stranger = createSecretBox({ key: STRANGER_KEY }).seal('pw-x', WHAT);
    await organizations([stranger, 'pw-y']);
    const { logger, lines } = recordingLogger();

    const counts = await resealStoredSecrets({ db, secrets: createSecretBox({ key: KEY }), logger });
    expect(counts).toEqual({ sealed: 1, resealed: 0, unreadable: 1, inClear: 0 });
    expect((await storedPasswords())[0]).toBe(stranger);
    const warning = lines.find((l) => l.level === 40)!;
    expect(warning.msg).toMatch(
      /^registry\.password of organization org-0: cannot be decrypted: it was encrypted with key/,
    );
    expect(JSON.stringify(lines)).not.toContain('pw-x');
    expect(JSON.stringify(lines)).not.toContain('pw-y');
  });

  it('without a key: changes nothing, warns how many passwords are in clear', async () => {
    await organizations(['pw-0', null, 'pw-2']);
    await platformRegistry('default-pw');
    const { logger, lines } = recordingLogger();

    const counts = await resealStoredSecrets({ db, secrets: createSecretBox(), logger });
    expect(counts).toEqual({ sealed: 0, resealed: 0, unreadable: 0, inClear: 3 });
    expect(await storedPasswords()).toEqual(['pw-0', null, 'pw-2']);
    expect(await storedPlatformPassword()).toBe('default-pw');
    expect(lines.find((l) => l.level === 40)?.msg).toBe(
      '3 stored registry password(s) are in clear: set SANDFLOW_SECRETS_KEY to encrypt them',
    );
  });

  it('two replicas starting together seal each password once (a row changed meanwhile is left to the other)', async () => {
    await organizations(['pw-0', 'pw-1', 'pw-2']);
    const secrets = createSecretBox({ key: KEY });
    const silent = pino({ level: 'silent' });
    const [a, b] = await Promise.all([
      resealStoredSecrets({ db, secrets, logger: silent, batch: 1 }),
      resealStoredSecrets({ db, secrets, logger: silent, batch: 1 }),
    ]);
    expect(a.sealed + b.sealed).toBe(3);
    const stored = await storedPasswords();
    expect(stored.every((p) => isSealed(p!))).toBe(true);
    expect(stored.map((p) => secrets.open(p!, WHAT))).toEqual(['pw-0', 'pw-1', 'pw-2']);
  });
});
