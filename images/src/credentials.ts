import { ImageError } from './errors.js';

export interface Credentials {
  username: string;
  password: string;
}

/** Credentials by registry host (`registry-1.docker.io`, `ghcr.io`, `127.0.0.1:5000`). */
export type CredentialsByHost = Map<string, Credentials>;

interface DockerConfigEntry {
  auth?: string;
  username?: string;
  password?: string;
}

/** A `kubernetes.io/dockerconfigjson` Secret as the Kubernetes API returns it (data base64-encoded). */
export interface DockerConfigSecret {
  type?: string;
  metadata?: { name?: string; namespace?: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const HUB_KEYS = new Set([
  'https://index.docker.io/v1/',
  'index.docker.io',
  'docker.io',
  'https://index.docker.io/v1',
]);

/** The host a key of `auths` stands for: a URL or a bare host; Docker Hub's legacy key included. */
export function hostOfAuthKey(key: string): string {
  if (HUB_KEYS.has(key)) return 'registry-1.docker.io';
  const host = /^[a-z]+:\/\//i.test(key) ? new URL(key).host : (key.split('/')[0] ?? key);
  return host === 'index.docker.io' || host === 'docker.io' ? 'registry-1.docker.io' : host;
}

export function parseDockerConfigJson(json: string, source = 'dockerconfigjson'): CredentialsByHost {
  let parsed: { auths?: Record<string, DockerConfigEntry> };
  try {
    parsed = JSON.parse(json) as typeof parsed;
  } catch (error) {
    throw new ImageError('INVALID_CREDENTIALS', `${source}: .dockerconfigjson is not JSON`, { cause: error });
  }
  if (!parsed || typeof parsed.auths !== 'object' || parsed.auths === null) {
    throw new ImageError('INVALID_CREDENTIALS', `${source}: .dockerconfigjson has no "auths" object`);
  }
  const result: CredentialsByHost = new Map();
  for (const [key, entry] of Object.entries(parsed.auths)) {
    const host = hostOfAuthKey(key);
    if (entry.username !== undefined && entry.password !== undefined) {
      result.set(host, { username: entry.username, password: entry.password });
      continue;
    }
    if (typeof entry.auth === 'string') {
      const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
      const sep = decoded.indexOf(':');
      if (sep <= 0)
        throw new ImageError(
          'INVALID_CREDENTIALS',
          `${source}: auths["${key}"].auth is not base64 of user:password`,
        );
      result.set(host, { username: decoded.slice(0, sep), password: decoded.slice(sep + 1) });
      continue;
    }
    throw new ImageError(
      'INVALID_CREDENTIALS',
      `${source}: auths["${key}"] has neither "auth" nor username and password`,
    );
  }
  return result;
}

export function credentialsFromSecret(secret: DockerConfigSecret): CredentialsByHost {
  const name = `Secret ${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? '?'}`;
  if (secret.type !== 'kubernetes.io/dockerconfigjson') {
    throw new ImageError(
      'INVALID_CREDENTIALS',
      `${name} is of type ${secret.type ?? 'Opaque'}, not kubernetes.io/dockerconfigjson`,
    );
  }
  const plain = secret.stringData?.['.dockerconfigjson'];
  const encoded = secret.data?.['.dockerconfigjson'];
  const json = plain ?? (encoded !== undefined ? Buffer.from(encoded, 'base64').toString('utf8') : undefined);
  if (json === undefined) throw new ImageError('INVALID_CREDENTIALS', `${name} has no .dockerconfigjson key`);
  return parseDockerConfigJson(json, name);
}
