import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { loadOrCreateSecret } from '../secret-file.js';

/** The bearer token of a data folder, made once and kept (mode 0600) beside the data. */
export const loadOrCreateToken = (dataDir: string | undefined) =>
  loadOrCreateSecret(dataDir, 'kube-lite.token');

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
