import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { isAlreadyExists, isNotFound, LABELS } from '@sandflow/kube';
import { unprocessable } from '../errors.js';
import type { SecretBox } from './secret-box.js';

/** The organization's private-registry account in its namespace; runs and builders pull with it. */
export const REGISTRY_SECRET = 'sandflow-registry';
/** What GET answers in place of a stored password. */
export const REDACTED = '********';

export interface RegistryInput {
  use_custom: boolean;
  url?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
}

/**
 * The organizations.registry column. `password` is as stored: an envelope of the secret box
 * (secret-box.ts), or a plain string saved before encryption (read as it is, sealed at start).
 */
export interface StoredRegistry {
  use_custom: boolean;
  url?: string;
  username?: string;
  password?: string;
}

/** The field a registry password is named by in messages. */
const PASSWORD_FIELD = 'registry.password';

/** Spec 3 §2.3 / issue 16: a private registry needs an http(s) URL. */
export function registryUrl(url: string | undefined): string {
  const text = (url ?? '').trim();
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw unprocessable('registry.url: must be an http(s) URL, e.g. https://registry.example.org');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw unprocessable('registry.url: must be an http(s) URL, e.g. https://registry.example.org');
  if (parsed.username || parsed.password)
    throw unprocessable('registry.url: put the account in username and password, not in the URL');
  return text.replace(/\/+$/, '');
}

/**
 * What is stored after a save. The form gets the password back only as '********', so that (or
 * nothing) keeps the stored one while the URL and username stay; anything else replaces it.
 * A private registry needs an http(s) URL; a password needs a username. A new password is sealed
 * (422 naming registry.password when the server has no SANDFLOW_SECRETS_KEY); a kept one is sealed
 * again under the current key when it is not already.
 */
export function nextRegistry(
  stored: StoredRegistry | null,
  input: RegistryInput,
  secrets: SecretBox,
): StoredRegistry {
  if (!input.use_custom) return { use_custom: false };
  const url = registryUrl(input.url);
  const username = input.username?.trim() ?? '';
  const sameAccount =
    stored?.use_custom === true && stored.url === url && (stored.username ?? '') === username;
  const unchanged = input.password === undefined || input.password === '' || input.password === REDACTED;
  // The stored password belongs to the stored URL and username: it never follows a new one.
  if (input.password === REDACTED && !sameAccount && stored?.password)
    throw unprocessable('registry.password: enter the password again for a new URL or username');
  const kept = unchanged && sameAccount ? (stored?.password ?? '') : '';
  const typed = unchanged ? '' : input.password!;
  if ((kept || typed) && !username) throw unprocessable('registry.username: needed with a password');
  const password = typed ? secrets.seal(typed, PASSWORD_FIELD) : secrets.reseal(kept, PASSWORD_FIELD);
  return { use_custom: true, url, ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** The account with its password opened: what the dockerconfigjson Secret and the registry calls need. */
export function openRegistry(stored: StoredRegistry, secrets: SecretBox, whose: string): StoredRegistry {
  if (!stored.password) return stored;
  return { ...stored, password: secrets.open(stored.password, `${PASSWORD_FIELD} of ${whose}`) };
}

/** The `.dockerconfigjson` of one registry account. */
export function dockerConfigJson(registry: StoredRegistry): string {
  const host = new URL(registry.url!).host;
  const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64');
  return JSON.stringify({
    auths: { [host]: { username: registry.username, password: registry.password, auth } },
  });
}

/** Writes the dockerconfigjson Secret of one account, or removes it when there is no account. */
async function syncDockerConfigSecret(
  core: CoreV1Api,
  target: { namespace: string; name: string; labels?: Record<string, string> },
  registry: StoredRegistry,
) {
  const { namespace, name } = target;
  if (!registry.use_custom || !registry.url || !registry.username || !registry.password) {
    try {
      await core.deleteNamespacedSecret({ namespace, name });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return;
  }
  const body: V1Secret = {
    metadata: { name, namespace, ...(target.labels ? { labels: target.labels } : {}) },
    type: 'kubernetes.io/dockerconfigjson',
    stringData: { '.dockerconfigjson': dockerConfigJson(registry) },
  };
  try {
    await core.createNamespacedSecret({ namespace, body });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    await core.replaceNamespacedSecret({ namespace, name, body });
  }
}

/**
 * Writes (or removes) the organization's `kubernetes.io/dockerconfigjson` Secret, which the runtime
 * and the builder read in the organization namespace. No Kubernetes API (unit tests): nothing to do.
 */
export function registrySecrets(kubeConfig: KubeConfig | null) {
  const core = kubeConfig?.makeApiClient(CoreV1Api) ?? null;
  return async function sync(namespace: string, organizationId: string, registry: StoredRegistry) {
    if (!core) return;
    await syncDockerConfigSecret(
      core,
      { namespace, name: REGISTRY_SECRET, labels: { [LABELS.organization]: organizationId } },
      registry,
    );
  };
}

/**
 * The platform default registry (Super Settings → Miscellaneous) as the dockerconfigjson Secret the
 * embedded runner pulls with (`SANDFLOW_REGISTRY_SECRET`, embedded/src/runner/registry-credentials.ts).
 * Its URL may be a bare host (`registry.example.org:5000`): https is assumed for the Secret's key.
 */
export function platformRegistrySecret(kubeConfig: KubeConfig, target: { namespace: string; name: string }) {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return async function sync(registry: { url: string; username: string; password: string }) {
    const url = registry.url.trim();
    const withScheme = /^https?:\/\//.test(url) ? url : `https://${url}`;
    let usable = url !== '';
    try {
      new URL(withScheme);
    } catch {
      usable = false;
    }
    await syncDockerConfigSecret(core, target, {
      use_custom: usable,
      url: withScheme,
      username: registry.username,
      password: registry.password,
    });
  };
}
