// kube-lite's kubelet giving containers what a real one gives them: env from Secrets, ConfigMaps and
// the Pod's own fields (env[].valueFrom, envFrom), secret and configMap volumes, and the waits a
// kubelet makes: CreateContainerConfigError while a Secret or key is missing, a volume's source
// missing, ImagePullBackOff until the image is in the registry. Real Pods through the fixture.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeletMissing, setUp, until, untilPhase, type Fixture, type Node } from './test-fixture.js';

if (kubeletMissing.length > 0)
  console.warn(`kubelet sources tests skipped: ${kubeletMissing.join(' and ')} not installed`);

const ns = 'default';
let fx: Fixture;
let node: Node;

const IMAGE = '$BUSYBOX';
const script = (sh: string, over: Record<string, unknown> = {}) => ({
  name: 'main',
  image: IMAGE,
  command: ['sh', '-c', sh],
  ...over,
});
const pod = (name: string, spec: Record<string, unknown>, labels?: Record<string, string>): V1Pod => ({
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: JSON.parse(
    JSON.stringify({ restartPolicy: 'Never', terminationGracePeriodSeconds: 1, ...spec }).replaceAll(
      IMAGE,
      fx.image,
    ),
  ) as V1Pod['spec'],
});
const logOf = (name: string) => node.core.readNamespacedPodLog({ name, namespace: ns, container: 'main' });
const read = (name: string) => () => node.core.readNamespacedPod({ name, namespace: ns });
const waiting = (p: V1Pod) => p.status?.containerStatuses?.[0]?.state?.waiting;

describe.skipIf(kubeletMissing.length > 0)('kube-lite kubelet: secrets, configMaps, fields, pulls', () => {
  beforeAll(async () => {
    fx = await setUp('kubelet-sources-');
    node = await fx.boot();
    await node.core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: 'creds' },
        stringData: { username: 'alice', password: 's3cret', 'not a name': 'skipped', 'tls.key': 'KEY' },
      },
    });
    await node.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'binary' }, data: { bytes: Buffer.from([0, 1]).toString('base64') } },
    });
    await node.core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: { name: 'settings' },
        data: { LEVEL: 'debug', 'app.conf': 'port=8080\n' },
        binaryData: { 'blob.bin': Buffer.from([0, 1, 2, 255]).toString('base64') },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
    await fx?.cleanup();
  });

  it.each([
    {
      name: 'env-secret-configmap',
      env: [
        { name: 'USER_NAME', valueFrom: { secretKeyRef: { name: 'creds', key: 'username' } } },
        { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'LEVEL' } } },
        { name: 'GREETING', value: 'hi $(USER_NAME) at $(LEVEL)' },
      ],
      echo: '$USER_NAME $LEVEL $GREETING',
      out: 'alice debug hi alice at debug',
    },
    {
      name: 'env-optional-missing',
      env: [
        { name: 'A', valueFrom: { secretKeyRef: { name: 'no-such', key: 'x', optional: true } } },
        { name: 'B', valueFrom: { configMapKeyRef: { name: 'settings', key: 'nope', optional: true } } },
      ],
      echo: '${A-unset} ${B-unset}',
      out: 'unset unset',
    },
    {
      name: 'env-fields',
      env: [
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      ],
      echo: '$POD $NS $IP node=$NODE $APP',
      out: 'env-fields default 127.0.0.1 node= web',
    },
    {
      name: 'env-resources',
      resources: { limits: { memory: '64Mi', cpu: '1500m' }, requests: { cpu: '250m' } },
      env: [
        {
          name: 'MEM',
          valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } },
        },
        { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
        { name: 'REQ', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } } },
      ],
      echo: '$MEM $CPU $REQ',
      out: '64 2 250',
    },
    {
      name: 'env-from',
      envFrom: [
        { secretRef: { name: 'creds' }, prefix: 'S_' },
        { configMapRef: { name: 'settings' } },
        { configMapRef: { name: 'missing', optional: true } },
      ],
      env: [{ name: 'LEVEL', value: 'env wins' }],
      // `tls.key` is a variable name to the kubelet (not to the shell: read from /proc), `not a
      // name` is none (skipped). `$$$$` is the shell's `$$` after the kubelet's expansion.
      echo: `$S_username $S_password $LEVEL; tr '\\0' '\\n' < /proc/$$$$/environ | grep -c -e '^S_tls.key=KEY$' -e 'not a name'`,
      out: 'alice s3cret env wins\n1',
    },
  ])('$name: the container sees $out', { timeout: 60_000 }, async ({ name, echo, out, ...over }) => {
    await node.core.createNamespacedPod({
      namespace: ns,
      body: pod(name, { containers: [script(`echo ${echo}`, over)] }, { app: 'web' }),
    });
    const done = await untilPhase(node.core, ns, name, ['Succeeded', 'Failed']);
    const terminated = done.status?.containerStatuses?.[0]?.state?.terminated;
    expect({
      phase: done.status?.phase,
      message: done.status?.message ?? terminated?.message,
      log: await logOf(name),
    }).toEqual({
      phase: 'Succeeded',
      log: `${out}\n`,
    });
  });

  it('mounts secret and configMap volumes read-only, with items and modes', { timeout: 60_000 }, async () => {
    await node.core.createNamespacedPod({
      namespace: ns,
      body: pod('volumes', {
        volumes: [
          {
            name: 's',
            secret: { secretName: 'creds', items: [{ key: 'password', path: 'deep/pw', mode: 0o400 }] },
          },
          { name: 'c', configMap: { name: 'settings', defaultMode: 0o640 } },
          { name: 'gone', configMap: { name: 'absent', optional: true } },
        ],
        containers: [
          script(
            [
              'ls /s /s/deep',
              'cat /s/deep/pw; echo',
              'stat -c %a /s/deep/pw /c/app.conf',
              'cat /c/app.conf',
              "od -An -tu1 /c/blob.bin | tr -s ' '",
              'ls -A /gone | wc -l',
              'touch /c/new 2>/dev/null && echo writable || echo read-only',
            ].join('; '),
            {
              volumeMounts: [
                { name: 's', mountPath: '/s' },
                { name: 'c', mountPath: '/c' },
                { name: 'gone', mountPath: '/gone' },
              ],
            },
          ),
        ],
      }),
    });
    const done = await untilPhase(node.core, ns, 'volumes', ['Succeeded', 'Failed']);
    expect(done.status?.phase).toBe('Succeeded');
    const lines = (await logOf('volumes')).split('\n').map((l) => l.trim());
    expect(lines).toEqual([
      '/s:',
      'deep',
      '',
      '/s/deep:',
      'pw',
      's3cret',
      '400',
      '640',
      'port=8080',
      '0 1 2 255',
      '0',
      'read-only',
      '',
    ]);
  });

  it.each([
    {
      what: 'a Secret key',
      spec: {
        containers: [
          script('echo $TOKEN', {
            env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'late', key: 'token' } } }],
          }),
        ],
      },
      reason: 'CreateContainerConfigError',
      message: 'secret "late" not found',
    },
    {
      what: 'a ConfigMap volume',
      spec: {
        volumes: [{ name: 'v', configMap: { name: 'late-cm' } }],
        containers: [script('cat /v/token', { volumeMounts: [{ name: 'v', mountPath: '/v' }] })],
      },
      reason: 'ContainerCreating',
      message: 'MountVolume.SetUp failed for volume "v": configmap "late-cm" not found',
    },
  ])(
    'waits for $what that is missing, then starts once it is there',
    { timeout: 90_000 },
    async ({ what, spec, reason, message }) => {
      const name = what.includes('Secret') ? 'waits-secret' : 'waits-volume';
      await node.core.createNamespacedPod({ namespace: ns, body: pod(name, spec) });
      const p = await until(read(name), (x) => waiting(x)?.message === message, `${name}: ${reason}`);
      expect(waiting(p)?.reason).toBe(reason);
      expect(p.status?.phase).toBe('Pending');
      if (what.includes('Secret')) {
        // The Secret there without the key: the message names the key and the Secret.
        await node.core.createNamespacedSecret({
          namespace: ns,
          body: { metadata: { name: 'late' }, stringData: { other: 'x' } },
        });
        await until(
          read(name),
          (x) => waiting(x)?.message === "couldn't find key token in Secret default/late",
          'the missing key named',
        );
        await node.core.replaceNamespacedSecret({
          name: 'late',
          namespace: ns,
          body: { metadata: { name: 'late' }, stringData: { other: 'x', token: 't0k3n' } },
        });
      } else {
        await node.core.createNamespacedConfigMap({
          namespace: ns,
          body: { metadata: { name: 'late-cm' }, data: { token: 't0k3n' } },
        });
      }
      const done = await untilPhase(node.core, ns, name, ['Succeeded', 'Failed'], 40_000);
      expect(done.status?.phase).toBe('Succeeded');
      expect(await logOf(name)).toMatch(/^t0k3n\n?$/);
    },
  );

  it.each([
    {
      name: 'bad-env',
      spec: {
        containers: [
          script('true', {
            env: [
              {
                name: 'X',
                valueFrom: {
                  secretKeyRef: { name: 'creds', key: 'username' },
                  fieldRef: { fieldPath: 'metadata.name' },
                },
              },
            ],
          }),
        ],
      },
      check: async () => {
        const p = await until(
          read('bad-env'),
          (x) => waiting(x) !== undefined && waiting(x)!.reason !== 'ContainerCreating',
          'a config error',
        );
        expect(waiting(p)).toEqual({
          reason: 'CreateContainerConfigError',
          message:
            'env X: valueFrom needs exactly one of secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef',
        });
      },
    },
    {
      name: 'bad-field',
      spec: {
        containers: [
          script('true', { env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.nope' } } }] }),
        ],
      },
      check: async () => {
        const p = await until(
          read('bad-field'),
          (x) => waiting(x)?.reason === 'CreateContainerConfigError',
          'a config error',
        );
        expect(waiting(p)?.message).toMatch(/^env X: fieldRef.fieldPath spec.nope is not supported \(/);
      },
    },
    {
      name: 'nul-env',
      spec: {
        containers: [
          script('true', {
            env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'binary', key: 'bytes' } } }],
          }),
        ],
      },
      check: async () => {
        const p = await until(
          read('nul-env'),
          (x) => waiting(x)?.reason === 'CreateContainerConfigError',
          'a config error',
        );
        expect(waiting(p)?.message).toBe('env X: key bytes in Secret default/binary has a NUL byte');
      },
    },
    {
      name: 'missing-item',
      spec: {
        volumes: [{ name: 's', secret: { secretName: 'creds', items: [{ key: 'nope', path: 'x' }] } }],
        containers: [script('true', { volumeMounts: [{ name: 's', mountPath: '/s' }] })],
      },
      check: async () => {
        const message =
          'MountVolume.SetUp failed for volume "s": secret references non-existent secret key: nope (Secret default/creds)';
        const p = await until(read('missing-item'), (x) => waiting(x)?.message === message, 'FailedMount');
        expect(waiting(p)?.reason).toBe('ContainerCreating');
        expect(p.status?.phase).toBe('Pending');
      },
    },
    {
      name: 'bad-volume',
      spec: {
        volumes: [
          { name: 's', secret: { secretName: 'creds', items: [{ key: 'username', path: '../out' }] } },
        ],
        containers: [script('true', { volumeMounts: [{ name: 's', mountPath: '/s' }] })],
      },
      check: async () => {
        const p = await untilPhase(node.core, ns, 'bad-volume', ['Failed']);
        expect(p.status).toMatchObject({
          reason: 'UnsupportedVolume',
          message: 'volume s: items[].path ../out must be a relative path without ..',
        });
      },
    },
  ])(
    '$name: a field it cannot honour is a clear error',
    { timeout: 60_000 },
    async ({ name, spec, check }) => {
      await node.core.createNamespacedPod({ namespace: ns, body: pod(name, spec) });
      await check();
    },
  );

  it(
    'backs off pulling an image, and starts it once it is in the registry',
    { timeout: 90_000 },
    async () => {
      const image = `${fx.registry.host}/sandflow/later:1`;
      await node.core.createNamespacedPod({
        namespace: ns,
        body: pod('later', { containers: [script('echo pulled', { image })] }),
      });
      const seen = new Set<string>();
      const p = await until(
        read('later'),
        (x) => (seen.add(waiting(x)?.reason ?? ''), waiting(x)?.reason === 'ImagePullBackOff'),
        'ImagePullBackOff',
      );
      expect(seen).toContain('ErrImagePull');
      expect(p.status?.phase).toBe('Pending');
      expect(waiting(p)?.message).toMatch(new RegExp(`^Back-off pulling image "${image}": ErrImagePull: `));
      expect(await fx.pushTo(fx.registry.host, undefined, 'sandflow/later:1')).toBe(image);
      const done = await untilPhase(node.core, ns, 'later', ['Succeeded', 'Failed'], 40_000);
      expect(done.status?.phase).toBe('Succeeded');
      expect(await logOf('later')).toBe('pulled\n');
    },
  );
});
