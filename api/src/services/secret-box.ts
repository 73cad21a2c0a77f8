// Credentials to third parties that the API must read back (registry passwords) are stored
// encrypted: AES-256-GCM under SANDFLOW_SECRETS_KEY, as a versioned envelope string
//
//   sfenc:v1:<key id>:<iv>:<tag>:<ciphertext>      (each part base64url)
//
// The key id (a hash of the key, not the key) says which key sealed a value, so that after a
// rotation SANDFLOW_SECRETS_KEY_PREVIOUS still opens what the old key sealed until the startup
// step (secret-box-reseal.ts) has sealed it again under the new one. The header is the GCM
// additional data: changing the key id or the version is caught like a changed ciphertext.
// Values stored before encryption existed are plain strings: they are read as they are.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { DomainError, unprocessable } from '../errors.js';

export const SECRETS_KEY_VARIABLE = 'SANDFLOW_SECRETS_KEY';
export const PREVIOUS_SECRETS_KEY_VARIABLE = 'SANDFLOW_SECRETS_KEY_PREVIOUS';
/** Every envelope starts so; a stored string that does not is a value from before encryption. */
export const ENVELOPE_PREFIX = 'sfenc:';
const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The 32 bytes of a key as the environment gives them (base64 or base64url, e.g.
 * `openssl rand -base64 32`), or why not: a message that never repeats the value.
 */
export function decodeSecretsKey(text: string): { key: Buffer } | { problem: string } {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed))
    return { problem: 'must be base64 (e.g. the output of `openssl rand -base64 32`)' };
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES)
    return {
      problem: `must be the base64 of ${KEY_BYTES} random bytes (\`openssl rand -base64 32\`); this one decodes to ${key.length} bytes`,
    };
  return { key };
}

/** A short public name of a key: which key sealed an envelope, without telling anything of the key. */
export function secretsKeyId(key: Buffer): string {
  return createHash('sha256')
    .update('sandflow secrets key id\0')
    .update(key)
    .digest('base64url')
    .slice(0, 11);
}

/** A stored secret that cannot be opened: a configuration problem of the server, answered 503. */
export class SecretUnreadableError extends DomainError {
  constructor(
    /** What could not be opened ('registry.password of organization acme'), never its value. */
    readonly what: string,
    reason: string,
    /** The key id the envelope names, when it could be read. */
    readonly keyId?: string,
  ) {
    super('unavailable', 'secret_unreadable', `${what}: cannot be decrypted: ${reason}`);
  }
}

export interface SecretBoxKeys {
  /** SANDFLOW_SECRETS_KEY: seals new values and opens them. Absent: nothing new can be sealed. */
  key?: Buffer | undefined;
  /** SANDFLOW_SECRETS_KEY_PREVIOUS: only opens what it sealed (during a rotation). */
  previousKey?: Buffer | undefined;
}

export interface SecretBox {
  /** Whether a key is configured, so that new values can be sealed. */
  readonly canSeal: boolean;
  /** The current key's id (undefined without a key). */
  readonly keyId: string | undefined;
  /**
   * The envelope of a value. Without a key: 422 naming `what` (the field, e.g. registry.password)
   * and SANDFLOW_SECRETS_KEY; a secret is never stored in clear from now on.
   */
  seal(plain: string, what: string): string;
  /** The value of a stored string: an envelope is opened, a value from before encryption is returned as is. */
  open(stored: string, what: string): string;
  /** Whether a stored string is an envelope of the current key (nothing left to do for it). */
  isCurrent(stored: string): boolean;
  /**
   * A stored value as it should stay stored: sealed under the current key when there is one
   * (an envelope of the current key is returned unchanged), else as it is.
   */
  reseal(stored: string, what: string): string;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(ENVELOPE_PREFIX);
}

export function createSecretBox(keys: SecretBoxKeys = {}): SecretBox {
  const current = keys.key ? { id: secretsKeyId(keys.key), key: keys.key } : undefined;
  const previous = keys.previousKey
    ? { id: secretsKeyId(keys.previousKey), key: keys.previousKey }
    : undefined;
  const byId = new Map([previous, current].filter((k) => k !== undefined).map((k) => [k.id, k.key]));

  function seal(plain: string, what: string): string {
    if (!current)
      throw unprocessable(
        `${what}: cannot be stored: the server has no ${SECRETS_KEY_VARIABLE} to encrypt it with (ask the platform operator to set it)`,
        'secrets_key_missing',
      );
    const header = `${ENVELOPE_PREFIX}${VERSION}:${current.id}`;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', current.key, iv);
    cipher.setAAD(Buffer.from(header));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return `${header}:${parts.join(':')}`;
  }

  function open(stored: string, what: string): string {
    if (!isSealed(stored)) return stored;
    const parts = stored.slice(ENVELOPE_PREFIX.length).split(':');
    const [version, keyId] = parts;
    if (version !== VERSION)
      throw new SecretUnreadableError(what, `unknown envelope version ${JSON.stringify(version ?? '')}`);
    if (parts.length !== 5 || !parts.slice(1).every((p) => /^[A-Za-z0-9_-]*$/.test(p)))
      throw new SecretUnreadableError(what, 'the envelope is malformed');
    const [, , ivText, tagText, ciphertextText] = parts as [string, string, string, string, string];
    const key = byId.get(keyId!);
    if (!key)
      throw new SecretUnreadableError(
        what,
        byId.size === 0
          ? `it was encrypted with key ${keyId} and ${SECRETS_KEY_VARIABLE} is not set`
          : `it was encrypted with key ${keyId}, which is neither ${SECRETS_KEY_VARIABLE} (${current?.id ?? 'not set'}) nor ${PREVIOUS_SECRETS_KEY_VARIABLE} (${previous?.id ?? 'not set'})`,
        keyId,
      );
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new SecretUnreadableError(what, 'the envelope is malformed', keyId);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(`${ENVELOPE_PREFIX}${VERSION}:${keyId}`));
      decipher.setAuthTag(tag);
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertextText, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretUnreadableError(
        what,
        `the envelope does not authenticate with key ${keyId} (it was altered)`,
        keyId,
      );
    }
  }

  function isCurrent(stored: string): boolean {
    return current !== undefined && stored.startsWith(`${ENVELOPE_PREFIX}${VERSION}:${current.id}:`);
  }

  return {
    canSeal: current !== undefined,
    keyId: current?.id,
    seal,
    open,
    isCurrent,
    reseal(stored, what) {
      if (!current || stored === '' || isCurrent(stored)) return stored;
      return seal(open(stored, what), what);
    },
  };
}
