import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import {
  createSecretBox,
  decodeSecretsKey,
  ENVELOPE_PREFIX,
  secretsKeyId,
  SecretUnreadableError,
  type SecretBox,
} from './secret-box.js';

const KEY = Buffer.alloc(32, 1);
const OLD_KEY = Buffer.alloc(32, 2);
const OTHER_KEY = Buffer.alloc(32, 3);
const WHAT = 'registry.password of organization acme';

/** The thrown error of `fn`, which must throw. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('did not throw');
}

describe('secret box: seal and open', () => {
  const box = createSecretBox({ key: KEY });

  it.each([
    ['a password', 's3cret-pw'],
    ['an empty string', ''],
    ['non-ASCII', 'pässwörd-密码-🔑'],
    ['colons and the envelope prefix', 'sfenc:v1:a:b:c:d'],
    ['a long token', 'x'.repeat(5000)],
  ])('round trip of %s; the envelope holds no trace of the value', (_case, plain) => {
    const sealed = box.seal(plain, WHAT);
    expect(sealed.startsWith(`${ENVELOPE_PREFIX}v1:${secretsKeyId(KEY)}:`)).toBe(true);
    expect(sealed.split(':')).toHaveLength(6);
    if (plain.length > 3) expect(sealed).not.toContain(plain);
    expect(box.open(sealed, WHAT)).toBe(plain);
    expect(box.isCurrent(sealed)).toBe(true);
  });

  it('seals the same value differently each time (a fresh IV)', () => {
    const a = box.seal('same', WHAT);
    const b = box.seal('same', WHAT);
    expect(a).not.toBe(b);
    expect([box.open(a, WHAT), box.open(b, WHAT)]).toEqual(['same', 'same']);
  });

  it('reads a value stored before encryption as it is', () => {
    expect(box.open('plain-old-password', WHAT)).toBe('plain-old-password');
    expect(box.isCurrent('plain-old-password')).toBe(false);
    expect(createSecretBox().open('plain-old-password', WHAT)).toBe('plain-old-password');
  });

  it('the key id names the key without revealing it', () => {
    expect(secretsKeyId(KEY)).toMatch(/^[A-Za-z0-9_-]{11}$/);
    expect(secretsKeyId(KEY)).not.toBe(secretsKeyId(OLD_KEY));
    expect(box.keyId).toBe(secretsKeyId(KEY));
  });
});

describe('secret box: what cannot be opened is a clear 503 naming the field, never the value', () => {
  const sealed = createSecretBox({ key: KEY }).seal('s3cret-pw', WHAT);
  const [prefix, version, keyId, iv, tag, ciphertext] = sealed.split(':') as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  /** One base64url part with its first character changed. */
  const flip = (part: string) => (part[0] === 'A' ? 'B' : 'A') + part.slice(1);

  it.each([
    [
      'another key',
      createSecretBox({ key: OTHER_KEY }),
      sealed,
      `it was encrypted with key ${keyId}, which is neither SANDFLOW_SECRETS_KEY (${secretsKeyId(OTHER_KEY)}) nor SANDFLOW_SECRETS_KEY_PREVIOUS (not set)`,
    ],
    [
      'no key at all',
      createSecretBox(),
      sealed,
      `it was encrypted with key ${keyId} and SANDFLOW_SECRETS_KEY is not set`,
    ],
    [
      'a changed ciphertext',
      createSecretBox({ key: KEY }),
      [prefix, version, keyId, iv, tag, flip(ciphertext)].join(':'),
      `the envelope does not authenticate with key ${keyId} (it was altered)`,
    ],
    [
      'a changed tag',
      createSecretBox({ key: KEY }),
      [prefix, version, keyId, iv, flip(tag), ciphertext].join(':'),
      `the envelope does not authenticate with key ${keyId} (it was altered)`,
    ],
    [
      'a changed IV',
      createSecretBox({ key: KEY }),
      [prefix, version, keyId, flip(iv), tag, ciphertext].join(':'),
      `the envelope does not authenticate with key ${keyId} (it was altered)`,
    ],
    [
      'the key id of another configured key (the header is authenticated)',
      createSecretBox({ key: OTHER_KEY, previousKey: KEY }),
      [prefix, version, secretsKeyId(OTHER_KEY), iv, tag, ciphertext].join(':'),
      `the envelope does not authenticate with key ${secretsKeyId(OTHER_KEY)} (it was altered)`,
    ],
    [
      'a truncated envelope',
      createSecretBox({ key: KEY }),
      [prefix, version, keyId, iv, tag].join(':'),
      'the envelope is malformed',
    ],
    [
      'a short IV',
      createSecretBox({ key: KEY }),
      [prefix, version, keyId, iv.slice(4), tag, ciphertext].join(':'),
      'the envelope is malformed',
    ],
    [
      'a part that is not base64url',
      createSecretBox({ key: KEY }),
      [prefix, version, keyId, iv, tag, `${ciphertext}+/`].join(':'),
      'the envelope is malformed',
    ],
    [
      'an unknown version',
      createSecretBox({ key: KEY }),
      [prefix, 'v9', keyId, iv, tag, ciphertext].join(':'),
      'unknown envelope version "v9"',
    ],
  ])('%s', (_case, box, stored, reason) => {
    const error = thrown(() => box.open(stored, WHAT));
    expect(error).toBeInstanceOf(SecretUnreadableError);
    expect(error.message).toBe(`${WHAT}: cannot be decrypted: ${reason}`);
    expect(error.message).not.toContain('s3cret-pw');
    expect(error).toMatchObject({ kind: 'unavailable', code: 'secret_unreadable' });
  });
});

describe('secret box: key rotation', () => {
  const old = createSecretBox({ key: OLD_KEY });
  const rotated = createSecretBox({ key: KEY, previousKey: OLD_KEY });

  it('the previous key opens what it sealed; reseal moves it under the current key', () => {
    const underOld = old.seal('s3cret-pw', WHAT);
    expect(rotated.open(underOld, WHAT)).toBe('s3cret-pw');
    expect(rotated.isCurrent(underOld)).toBe(false);
    const moved = rotated.reseal(underOld, WHAT);
    expect(rotated.isCurrent(moved)).toBe(true);
    expect(createSecretBox({ key: KEY }).open(moved, WHAT)).toBe('s3cret-pw');
  });

  const CASES: [string, SecretBox, () => string, 'same' | 'sealed'][] = [
    ['a current envelope stays as it is', rotated, () => rotated.seal('pw', WHAT), 'same'],
    ['a value in clear is sealed', rotated, () => 'pw', 'sealed'],
    ['an empty value stays empty', rotated, () => '', 'same'],
    ['without a key a value in clear stays in clear', createSecretBox(), () => 'pw', 'same'],
  ];
  it.each(CASES)('reseal: %s', (_case, box, stored, expected) => {
    const value = stored();
    const result = box.reseal(value, WHAT);
    if (expected === 'same') expect(result).toBe(value);
    else {
      expect(box.isCurrent(result)).toBe(true);
      expect(box.open(result, WHAT)).toBe(value);
    }
  });
});

describe('secret box: no key', () => {
  it('refuses to seal with a 422 naming the field and SANDFLOW_SECRETS_KEY', () => {
    const error = thrown(() => createSecretBox().seal('s3cret-pw', 'registry.password'));
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'invalid', code: 'secrets_key_missing' });
    expect(error.message).toMatch(/^registry\.password: cannot be stored: .*SANDFLOW_SECRETS_KEY/);
    expect(error.message).not.toContain('s3cret-pw');
    expect(createSecretBox().canSeal).toBe(false);
  });
});

describe('decodeSecretsKey', () => {
  it.each([
    ['base64 (openssl rand -base64 32)', KEY.toString('base64')],
    ['base64url without padding (the data folder file)', Buffer.alloc(32, 0xfb).toString('base64url')],
    ['surrounded by a newline', `${KEY.toString('base64')}\n`],
  ])('takes %s', (_case, text) => {
    const decoded = decodeSecretsKey(text);
    expect('key' in decoded && decoded.key.length).toBe(32);
  });

  it.each([
    ['16 bytes', Buffer.alloc(16, 9).toString('base64'), /decodes to 16 bytes/],
    ['48 bytes', Buffer.alloc(48, 9).toString('base64'), /decodes to 48 bytes/],
    ['not base64', 'this is not a key!', /must be base64/],
  ])('refuses %s without repeating it', (_case, text, problem) => {
    const decoded = decodeSecretsKey(text);
    expect('problem' in decoded && decoded.problem).toMatch(problem);
    expect(JSON.stringify(decoded)).not.toContain(text);
  });
});
