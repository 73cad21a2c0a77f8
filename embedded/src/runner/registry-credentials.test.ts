// A run's registry credentials read from dockerconfigjson Secrets in kube-lite: the platform
// default's, the organization's and the run namespace's, later ones winning per host.
import { CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryCredentials } from './registry-credentials.js';
import { startTestCluster } from './testing.js';

let cluster: Awaited<ReturnType<typeof startTestCluster>>;

const dockerConfig = (
  namespace: string,
  name: string,
  auths: Record<string, [string, string]>,
): V1Secret => ({
  metadata: { namespace, name },
  type: 'kubernetes.io/dockerconfigjson',
  stringData: {
    '.dockerconfigjson': JSON.stringify({
      auths: Object.fromEntries(
        Object.entries(auths).map(([host, [u, p]]) => [
          host,
          { auth: Buffer.from(`${u}:${p}`).toString('base64') },
        ]),
      ),
    }),
  },
});

beforeAll(async () => {
  cluster = await startTestCluster();
  const core = cluster.kc.makeApiClient(CoreV1Api);
  const namespaces: [string, Record<string, string>][] = [
    ['platform', {}],
    ['sf-acme', { 'sandflow.io/organization': 'acme' }],
    ['sf-acme-lab', { 'sandflow.io/organization': 'acme', 'sandflow.io/group': 'lab' }],
    ['sf-other', { 'sandflow.io/organization': 'other' }],
    ['sf-bare', {}],
  ];
  for (const [name, labels] of namespaces)
    await core.createNamespace({ body: { metadata: { name, labels } } });
  const secrets = [
    dockerConfig('platform', 'default-registry', {
      'https://index.docker.io/v1/': ['platform', 'p1'],
      'ghcr.io': ['platform', 'p2'],
    }),
    dockerConfig('sf-acme', 'registry', { 'ghcr.io': ['acme', 'o1'], 'harbor.acme.io': ['acme', 'o2'] }),
    dockerConfig('sf-acme-lab', 'lab-registry', { 'harbor.acme.io': ['lab', 'g1'] }),
    dockerConfig('sf-other', 'registry', { 'ghcr.io': ['other', 'x'] }),
  ];
  for (const body of secrets)
    await core.createNamespacedSecret({ namespace: body.metadata!.namespace!, body });
  await core.createNamespacedSecret({
    namespace: 'sf-acme',
    body: { metadata: { name: 'opaque' }, type: 'Opaque', stringData: { password: 'not a registry' } },
  });
}, 60_000);
afterAll(async () => cluster?.close());

const users = (m: Map<string, { username: string }>) =>
  Object.fromEntries([...m].map(([host, c]) => [host, c.username]));

describe('registryCredentials', () => {
  it.each([
    {
      namespace: 'sf-acme-lab',
      expected: { 'registry-1.docker.io': 'platform', 'ghcr.io': 'acme', 'harbor.acme.io': 'lab' },
    },
    {
      namespace: 'sf-acme',
      expected: { 'registry-1.docker.io': 'platform', 'ghcr.io': 'acme', 'harbor.acme.io': 'acme' },
    },
    { namespace: 'sf-bare', expected: { 'registry-1.docker.io': 'platform', 'ghcr.io': 'platform' } },
    { namespace: 'missing', expected: { 'registry-1.docker.io': 'platform', 'ghcr.io': 'platform' } },
  ])('$namespace gets the platform, organization and own Secrets', async ({ namespace, expected }) => {
    const read = registryCredentials({
      kc: cluster.kc,
      platformSecret: { namespace: 'platform', name: 'default-registry' },
    });
    expect(users(await read(namespace))).toEqual(expected);
  });

  it('reads nothing without Secrets or a platform default', async () => {
    const read = registryCredentials({
      kc: cluster.kc,
      platformSecret: { namespace: 'platform', name: 'absent' },
    });
    expect((await read('sf-bare')).size).toBe(0);
  });

  it('names the Secret when one is not valid', async () => {
    const core = cluster.kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'sf-broken' } } });
    await core.createNamespacedSecret({
      namespace: 'sf-broken',
      body: {
        metadata: { name: 'bad' },
        type: 'kubernetes.io/dockerconfigjson',
        stringData: { '.dockerconfigjson': '{' },
      },
    });
    const read = registryCredentials({ kc: cluster.kc });
    await expect(read('sf-broken')).rejects.toThrow(/namespace sf-broken.*Secret sf-broken\/bad/);
  });
});
