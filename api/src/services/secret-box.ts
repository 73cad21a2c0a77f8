// Credentials to third parties that the API must read back (registry passwords) are stored
// encrypted: AES-256-GCM under SANDFLOW_SECRETS_KEY, as a versioned envelope string
//
//   sfenc:v1:<key id>:<iv>:<tag>:<ciphertext>      (each part base64url)
//
// The envelope itself (key ids, sealing, opening with the current or the previous key) lives in
// @sandflow/kube (secret-envelope.ts), shared with kube-lite, which keeps v1 Secrets encrypted
// at rest with the same key. This box adds what the API answers: a value cannot be sealed
// without a key (422 naming the field), a value that cannot be opened is a 503 naming it.
// After a rotation SANDFLOW_SECRETS_KEY_PREVIOUS still opens what the old key sealed until the
// startup step (secret-box-reseal.ts) has sealed it again under the new one. Values stored
// before encryption existed are plain strings: they are read as they are.
import { createEnvelope, EnvelopeOpenError, SECRETS_KEY_VARIABLE } from '@sandflow/kube';
import { DomainError, unprocessable } from '../errors.js';

export {
  decodeSecretsKey,
  ENVELOPE_PREFIX,
  isSealed,
  PREVIOUS_SECRETS_KEY_VARIABLE,
  SECRETS_KEY_VARIABLE,
  secretsKeyId,
} from '@sandflow/kube';

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

export function createSecretBox(keys: SecretBoxKeys = {}): SecretBox {
  const envelope = createEnvelope(keys);
  const canSeal = envelope.keyId !== undefined;

  function seal(plain: string, what: string): string {
    if (!canSeal)
      throw unprocessable(
        `${what}: cannot be stored: the server has no ${SECRETS_KEY_VARIABLE} to encrypt it with (ask the platform operator to set it)`,
        'secrets_key_missing',
      );
    return envelope.seal(plain);
  }

  function open(stored: string, what: string): string {
    try {
      return envelope.open(stored);
    } catch (error) {
      if (error instanceof EnvelopeOpenError)
        throw new SecretUnreadableError(what, error.reason, error.keyId);
      throw error;
    }
  }

  return {
    canSeal,
    keyId: envelope.keyId,
    seal,
    open,
    isCurrent: envelope.isCurrent,
    reseal(stored, what) {
      if (!canSeal || stored === '' || envelope.isCurrent(stored)) return stored;
      return seal(open(stored, what), what);
    },
  };
}
