// Registry credentials of a run, from `kubernetes.io/dockerconfigjson` Secrets: the platform default
// registry's Secret (Super Settings → Miscellaneous), then the organization's (its namespace, found
// through the `sandflow.io/organization` label of the run's namespace), then the run's own
// namespace; a later host entry wins, so an organization's registry account overrides the
// platform's. Read per namespace at most every `ttlMs`, since every step of a run asks.
import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { credentialsFromSecret, type CredentialsByHost } from '@sandflow/images';
import { isNotFound, LABELS } from '@sandflow/kube';

const DOCKER_CONFIG_JSON = 'kubernetes.io/dockerconfigjson';

export interface RegistrySecretsOptions {
  kc: KubeConfig;
  /** The platform default registry's Secret; absent or missing means none. */
  platformSecret?: { namespace: string; name: string };
  ttlMs?: number;
}

export type CredentialsForNamespace = (namespace: string) => Promise<CredentialsByHost>;

export function registryCredentials(options: RegistrySecretsOptions): CredentialsForNamespace {
  const core = options.kc.makeApiClient(CoreV1Api);
  const ttl = options.ttlMs ?? 30_000;
  const cache = new Map<string, { at: number; value: Promise<CredentialsByHost> }>();

  const secretsOf = async (namespace: string): Promise<V1Secret[]> => {
    try {
      return (await core.listNamespacedSecret({ namespace })).items.filter(
        (s) => s.type === DOCKER_CONFIG_JSON,
      );
    } catch (e) {
      if (isNotFound(e)) return [];
      throw e;
    }
  };

  const platform = async (): Promise<V1Secret[]> => {
    if (!options.platformSecret) return [];
    try {
      return [await core.readNamespacedSecret(options.platformSecret)];
    } catch (e) {
      if (isNotFound(e)) return [];
      throw e;
    }
  };

  /** The organization namespaces of a run's namespace (not itself). */
  const organizationNamespaces = async (namespace: string): Promise<string[]> => {
    let org: string | undefined;
    try {
      org = (await core.readNamespace({ name: namespace })).metadata?.labels?.[LABELS.organization];
    } catch (e) {
      if (isNotFound(e)) return [];
      throw e;
    }
    if (!org) return [];
    const list = await core.listNamespace({ labelSelector: `${LABELS.organization}=${org}` });
    return list.items
      .filter((ns) => !ns.metadata?.labels?.[LABELS.group] && ns.metadata?.name !== namespace)
      .map((ns) => ns.metadata!.name!);
  };

  const read = async (namespace: string): Promise<CredentialsByHost> => {
    const orgs = await organizationNamespaces(namespace);
    const layers = [await platform(), ...(await Promise.all([...orgs, namespace].map(secretsOf)))];
    const merged: CredentialsByHost = new Map();
    for (const secret of layers.flat()) {
      for (const [host, c] of credentialsFromSecret(secret as Parameters<typeof credentialsFromSecret>[0]))
        merged.set(host, c);
    }
    return merged;
  };

  return (namespace) => {
    const hit = cache.get(namespace);
    if (hit && Date.now() - hit.at < ttl) return hit.value;
    const value = read(namespace).catch((e: unknown) => {
      cache.delete(namespace);
      throw new Error(
        `reading the registry credentials of namespace ${namespace} failed: ${(e as Error).message}`,
        {
          cause: e,
        },
      );
    });
    cache.set(namespace, { at: Date.now(), value });
    return value;
  };
}
