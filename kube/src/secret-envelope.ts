// The AES-256-GCM envelope secrets are stored in, shared by the API (registry passwords,
// api/src/services/secret-box.ts) and kube-lite (Secrets at rest, embedded/src/kube-lite/encryption.ts):
//
//   sfenc:v1:<key id>:<iv>:<tag>:<ciphertext>      (each part base64url)
//
// The key id (a hash of the key, not the key) says which key sealed a value, so that after a
// rotation SANDFLOW_SECRETS_KEY_PREVIOUS still opens what the old key sealed until it is sealed
// again under the new one. The header is the GCM additional data, so changing the key id or the
// version is caught like a changed ciphertext; a caller may bind an envelope to where it is
// stored (a context, e.g. kube-lite's row key, as kube-apiserver binds a value to its etcd key),
// then an envelope copied elsewhere does not open. Values stored before encryption existed are
// plain strings: they are read as they are.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

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

export function isSealed(stored: string): boolean {
  return stored.startsWith(ENVELOPE_PREFIX);
}

/** An envelope that cannot be opened; `reason` never contains the value or a key. */
export class EnvelopeOpenError extends Error {
  constructor(
    readonly reason: string,
    /** The key id the envelope names, when it could be read. */
    readonly keyId?: string,
  ) {
    super(`cannot be decrypted: ${reason}`);
    this.name = 'EnvelopeOpenError';
  }
}

export interface EnvelopeKeys {
  /** SANDFLOW_SECRETS_KEY: seals new values and opens them. Absent: nothing new can be sealed. */
  key?: Buffer | undefined;
  /** SANDFLOW_SECRETS_KEY_PREVIOUS: only opens what it sealed (during a rotation). */
  previousKey?: Buffer | undefined;
}

export interface Envelope {
  /** The current key's id (undefined without a key: seal throws). */
  readonly keyId: string | undefined;
  /** The envelope of a value under the current key, bound to `context` when given. */
  seal(plain: string, context?: string): string;
  /**
   * The value of a stored string: an envelope is opened (with the context it was sealed with), a
   * value from before encryption is returned as is. Throws EnvelopeOpenError.
   */
  open(stored: string, context?: string): string;
  /** Whether a stored string is an envelope of the current key (nothing left to do for it). */
  isCurrent(stored: string): boolean;
}

const additionalData = (keyId: string, context: string | undefined) =>
  Buffer.from(`${ENVELOPE_PREFIX}${VERSION}:${keyId}${context === undefined ? '' : `\0${context}`}`, 'utf8');

export function createEnvelope(keys: EnvelopeKeys = {}): Envelope {
  const current = keys.key ? { id: secretsKeyId(keys.key), key: keys.key } : undefined;
  const previous = keys.previousKey
    ? { id: secretsKeyId(keys.previousKey), key: keys.previousKey }
    : undefined;
  const byId = new Map([previous, current].filter((k) => k !== undefined).map((k) => [k.id, k.key]));

  function seal(plain: string, context?: string): string {
    if (!current) throw new Error(`nothing can be encrypted without ${SECRETS_KEY_VARIABLE}`);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', current.key, iv);
    cipher.setAAD(additionalData(current.id, context));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return `${ENVELOPE_PREFIX}${VERSION}:${current.id}:${parts.join(':')}`;
  }

  function open(stored: string, context?: string): string {
    if (!isSealed(stored)) return stored;
    const parts = stored.slice(ENVELOPE_PREFIX.length).split(':');
    const [version, keyId] = parts;
    if (version !== VERSION)
      throw new EnvelopeOpenError(`unknown envelope version ${JSON.stringify(version ?? '')}`);
    if (parts.length !== 5 || !parts.slice(1).every((p) => /^[A-Za-z0-9_-]*$/.test(p)))
      throw new EnvelopeOpenError('the envelope is malformed');
    const [, , ivText, tagText, ciphertextText] = parts as [string, string, string, string, string];
    const key = byId.get(keyId!);
    if (!key)
      throw new EnvelopeOpenError(
        byId.size === 0
          ? `it was encrypted with key ${keyId} and ${SECRETS_KEY_VARIABLE} is not set`
          : `it was encrypted with key ${keyId}, which is neither ${SECRETS_KEY_VARIABLE} (${current?.id ?? 'not set'}) nor ${PREVIOUS_SECRETS_KEY_VARIABLE} (${previous?.id ?? 'not set'})`,
        keyId,
      );
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new EnvelopeOpenError('the envelope is malformed', keyId);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(additionalData(keyId!, context));
      decipher.setAuthTag(tag);
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertextText, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new EnvelopeOpenError(
        `the envelope does not authenticate with key ${keyId} (it was altered${context === undefined ? '' : ' or belongs elsewhere'})`,
        keyId,
      );
    }
  }

  return {
    keyId: current?.id,
    seal,
    open,
    isCurrent: (stored) =>
      current !== undefined && stored.startsWith(`${ENVELOPE_PREFIX}${VERSION}:${current.id}:`),
  };
}
