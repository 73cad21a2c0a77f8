import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

/** The bearer token of a data folder, made once and kept (mode 0600) beside the data. */
export function loadOrCreateToken(dataDir: string | undefined): string {
  if (!dataDir) return randomBytes(32).toString('base64url');
  const file = path.join(dataDir, 'kube-lite.token');
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing) return existing;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}`, { cause: e });
  }
  const token = randomBytes(32).toString('base64url');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

export function kubeconfigYaml(server: string, token: string, caPem: string, name = 'sandflow'): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name, cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } },
    ],
    users: [{ name: `${name}-admin`, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: `${name}-admin`, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}

export function writeKubeconfig(file: string, server: string, token: string, caPem: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, kubeconfigYaml(server, token, caPem), { mode: 0o600 });
}
