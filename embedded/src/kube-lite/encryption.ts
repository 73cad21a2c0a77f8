// Encryption at rest of kube-lite's Secrets, as kube-apiserver's EncryptionConfiguration with an
// aesgcm provider: the body of a `secrets` row is stored as an envelope string (the shared
// AES-256-GCM envelope of @sandflow/kube, the key the API seals registry passwords with) instead
// of the object's JSON, bound to the row's key (a body copied onto another row does not open, as
// kube-apiserver authenticates a value with its etcd key). Only persistence.ts uses it: the store,
// watches and clients see plain Secrets. Other resources are stored as they are.
import { createEnvelope, EnvelopeOpenError, isSealed, type Envelope } from '@sandflow/kube';
import type { KubeObject } from './types.js';

export interface KubeLiteEncryption {
  /** The 32-byte key new and rewritten Secrets are sealed with (SANDFLOW_SECRETS_KEY). */
  key: Buffer;
  /** The key before a rotation (SANDFLOW_SECRETS_KEY_PREVIOUS): opens, never seals. */
  previous?: Buffer | undefined;
}

/** The resources whose rows are encrypted (registry.ts's resourceKey: `group/plural`). */
const ENCRYPTED_RESOURCES = new Set(['/secrets']);

/** What a stored body is: a plain object, or an envelope of one (a JSON string in the jsonb column). */
export type StoredBody = KubeObject | string;

/** A row no configured key opens: kube-lite refuses to start rather than serve a corrupt object. */
export class UnreadableObjectError extends Error {
  constructor(
    readonly resource: string,
    readonly namespace: string,
    readonly objectName: string,
    reason: string,
  ) {
    super(
      `kube-lite cannot start: the stored ${describe(resource, namespace, objectName)} cannot be decrypted: ${reason}. ` +
        'Start with the key it was encrypted with (SANDFLOW_SECRETS_KEY, or SANDFLOW_SECRETS_KEY_PREVIOUS during a rotation), or delete its row from kube_objects',
    );
    this.name = 'UnreadableObjectError';
  }
}

function describe(resource: string, namespace: string, name: string): string {
  const kind = resource === '/secrets' ? 'Secret' : resource;
  return `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

export class AtRestTransform {
  private readonly envelope: Envelope | undefined;

  constructor(encryption?: KubeLiteEncryption) {
    this.envelope = encryption
      ? createEnvelope({ key: encryption.key, previousKey: encryption.previous })
      : undefined;
  }

  /** Whether new Secrets are stored encrypted. */
  get encrypts(): boolean {
    return this.envelope !== undefined;
  }

  /** The body to store for a row: an envelope for a Secret when there is a key, else the object. */
  toStored(rowKey: string, resource: string, body: KubeObject): StoredBody {
    if (!this.envelope || !ENCRYPTED_RESOURCES.has(resource)) return body;
    return this.envelope.seal(JSON.stringify(body), rowKey);
  }

  /**
   * The object of a stored body, and whether the row should be rewritten (a Secret in clear while
   * there is a key, or one under the previous key). Throws UnreadableObjectError.
   */
  fromStored(
    rowKey: string,
    resource: string,
    namespace: string,
    name: string,
    stored: StoredBody,
  ): { body: KubeObject; stale: 'plain' | 'previous' | undefined } {
    if (typeof stored !== 'string') {
      const stale = this.envelope && ENCRYPTED_RESOURCES.has(resource) ? 'plain' : undefined;
      return { body: stored, stale };
    }
    if (!isSealed(stored))
      throw new UnreadableObjectError(
        resource,
        namespace,
        name,
        'its body is neither an object nor an envelope',
      );
    // Without a key, an envelope cannot be opened: the core names SANDFLOW_SECRETS_KEY as not set.
    const envelope = this.envelope ?? createEnvelope();
    let text: string;
    try {
      text = envelope.open(stored, rowKey);
    } catch (error) {
      if (error instanceof EnvelopeOpenError)
        throw new UnreadableObjectError(resource, namespace, name, error.reason);
      throw error;
    }
    let body: KubeObject;
    try {
      body = JSON.parse(text) as KubeObject;
    } catch {
      throw new UnreadableObjectError(resource, namespace, name, 'its decrypted body is not JSON');
    }
    return { body, stale: envelope.isCurrent(stored) ? undefined : 'previous' };
  }
}
