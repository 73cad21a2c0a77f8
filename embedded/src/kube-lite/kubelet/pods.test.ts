// kube-lite's kubelet running real Pods: the busybox image from a real registry, each container
// under bwrap over its own copy of the image root, status written back through the API.
import fs from 'node:fs';
import path from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { registryMissing, startRegistry } from '@sandflow/images/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kubeletMissing,
  processesWith,
  setUp,
  until,
  untilPhase,
  type Fixture,
  type Node,
} from './test-fixture.js';

const authMissing = registryMissing({ auth: true });
if (authMissing) console.warn(`kubelet imagePullSecrets test skipped: ${authMissing}`);
if (kubeletMissing.length > 0)
  console.warn(`kubelet tests skipped: ${kubeletMissing.join(' and ')} not installed`);

const ns = 'default';
let fx: Fixture;
let node: Node;

/** Stands for the busybox image in the tables (pushed once the registry runs). */
const IMAGE = '$BUSYBOX';
/** Stands for a host folder the tables bind (hostPath). */
const HOST = '$HOST';
let hostDir: string;
const container = (over: Record<string, unknown>) => ({ name: 'main', image: IMAGE, ...over });
const pod = (name: string, spec: Record<string, unknown>): V1Pod => ({
  metadata: { name },
  spec: JSON.parse(
    JSON.stringify({ restartPolicy: 'Never', terminationGracePeriodSeconds: 1, ...spec })
      .replaceAll(IMAGE, fx.image)
      .replaceAll(HOST, hostDir),
  ) as V1Pod['spec'],
});
/** What the container wrote, through `pods/log`. */
const logOf = (p: V1Pod, container = 'main', tailLines?: number) =>
  node.core.readNamespacedPodLog({ name: p.metadata!.name!, namespace: ns, container, tailLines });

describe.skipIf(kubeletMissing.length > 0)('kube-lite kubelet: pods', () => {
  beforeAll(async () => {
    fx = await setUp('kubelet-pods-');
    hostDir = path.join(fx.tmp, 'host');
    fs.mkdirSync(hostDir);
    fs.writeFileSync(path.join(hostDir, 'in'), 'from the host\n');
    node = await fx.boot();
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
    await fx?.cleanup();
  });

  it('serves v1 pods (shortName po) only with the kubelet', async () => {
    const list = await node.core.getAPIResources();
    const pods = list.resources.find((r) => r.name === 'pods');
    expect(pods).toMatchObject({ kind: 'Pod', namespaced: true, shortNames: ['po'] });
    expect(list.resources.map((r) => r.name)).toContain('pods/status');
  });

  it.each([
    {
      name: 'init-copies',
      spec: {
        volumes: [{ name: 'shared', emptyDir: {} }],
        initContainers: [
          container({
            name: 'init',
            command: ['sh', '-c', 'cp /etc/os-release /work/copied && echo $GREETING > /work/greeting'],
            env: [{ name: 'GREETING', value: 'hello from init' }],
            volumeMounts: [{ name: 'shared', mountPath: '/work' }],
          }),
        ],
        containers: [
          container({
            command: ['sh', '-c'],
            args: ['cat /data/copied /data/greeting; id -u; pwd'],
            workingDir: '/tmp',
            securityContext: { runAsUser: 1234, runAsGroup: 4321 },
            volumeMounts: [{ name: 'shared', mountPath: '/data' }],
          }),
        ],
      },
      phase: 'Succeeded',
      check: async (p: V1Pod) => {
        expect(p.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({
          exitCode: 0,
          reason: 'Completed',
        });
        expect(p.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0 });
        expect(await logOf(p)).toBe(
          'NAME="Sandflow busybox"\nID=sandflow-busybox\nPRETTY_NAME="Sandflow busybox (Debian busybox-static)"\nhello from init\n1234\n/tmp\n',
        );
        expect(await logOf(p, 'main', 2)).toBe('1234\n/tmp\n');
        expect(await logOf(p, 'init')).toBe('');
      },
    },
    {
      name: 'exits-three',
      spec: { containers: [container({ command: ['sh', '-c', 'echo failing >&2; exit 3'] })] },
      phase: 'Failed',
      check: async (p: V1Pod) => {
        const s = p.status!.containerStatuses![0]!;
        expect(s.state?.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
        expect(s.ready).toBe(false);
        expect(await logOf(p)).toBe('failing\n');
      },
    },
    {
      name: 'init-fails',
      spec: {
        initContainers: [container({ name: 'init', command: ['sh', '-c', 'exit 5'] })],
        containers: [container({ command: ['true'] })],
      },
      phase: 'Failed',
      check: (p: V1Pod) => {
        expect(p.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({
          exitCode: 5,
          reason: 'Error',
        });
        expect(p.status?.containerStatuses?.[0]?.state?.waiting).toMatchObject({ reason: 'Init:Error' });
      },
    },
    {
      name: 'image-entrypoint',
      // busybox's image says Cmd ["/bin/sh"]: with nothing on stdin the shell ends at once.
      spec: { containers: [container({})] },
      phase: 'Succeeded',
      check: (p: V1Pod) => expect(p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(0),
    },
    {
      name: 'on-failure-restarts',
      spec: {
        restartPolicy: 'OnFailure',
        volumes: [{ name: 'count', emptyDir: {} }],
        containers: [
          container({
            command: ['sh', '-c', 'echo x >> /c/runs; test $(wc -l < /c/runs) -ge 2'],
            volumeMounts: [{ name: 'count', mountPath: '/c' }],
          }),
        ],
      },
      phase: 'Succeeded',
      check: (p: V1Pod) => {
        const s = p.status!.containerStatuses![0]!;
        expect(s.restartCount).toBe(1);
        expect(s.lastState?.terminated).toMatchObject({ exitCode: 1 });
        expect(s.state?.terminated).toMatchObject({ exitCode: 0 });
      },
    },
    {
      name: 'host-path',
      spec: {
        volumes: [{ name: 'host', hostPath: { path: '$HOST', type: 'Directory' } }],
        containers: [
          container({
            command: ['sh', '-c', 'echo from the pod > /host/out; cat /host/in'],
            volumeMounts: [{ name: 'host', mountPath: '/host' }],
          }),
        ],
      },
      phase: 'Succeeded',
      check: async (p: V1Pod) => {
        expect(fs.readFileSync(path.join(hostDir, 'out'), 'utf8')).toBe('from the pod\n');
        expect(await logOf(p)).toBe('from the host\n');
      },
    },
    {
      name: 'host-path-missing',
      spec: {
        volumes: [{ name: 'host', hostPath: { path: '$HOST/nope', type: 'Directory' } }],
        containers: [container({ command: ['true'], volumeMounts: [{ name: 'host', mountPath: '/host' }] })],
      },
      phase: 'Failed',
      check: (p: V1Pod) =>
        expect(p.status?.message).toMatch(/volume host: hostPath .*\/nope is not a directory/),
    },
    {
      name: 'deadline',
      spec: { activeDeadlineSeconds: 1, containers: [container({ command: ['sleep', '3600'] })] },
      phase: 'Failed',
      check: (p: V1Pod) => {
        expect(p.status).toMatchObject({ reason: 'DeadlineExceeded' });
        expect(p.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 137 });
      },
    },
  ])('$name ends $phase', { timeout: 90_000 }, async ({ name, spec, phase, check }) => {
    await node.core.createNamespacedPod({ namespace: ns, body: pod(name, spec) });
    const done = await untilPhase(
      node.core,
      ns,
      name,
      [phase, ...['Succeeded', 'Failed'].filter((x) => x !== phase)],
      60_000,
    );
    expect(done.status?.phase).toBe(phase);
    expect(done.status).toMatchObject({ podIP: '127.0.0.1', hostIP: '127.0.0.1' });
    expect(done.status?.startTime).toBeTruthy();
    await check(done);
  });

  it('reports a Running pod like a kubelet', { timeout: 60_000 }, async () => {
    await node.core.createNamespacedPod({
      namespace: ns,
      body: pod('runs', { containers: [container({ command: ['sleep', '3600'] })] }),
    });
    const p = await until(
      () => node.core.readNamespacedPod({ name: 'runs', namespace: ns }),
      (x) =>
        x.status?.phase === 'Running' &&
        x.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
      'pod runs to be Ready',
    );
    const s = p.status!.containerStatuses![0]!;
    expect(s).toMatchObject({ name: 'main', ready: true, started: true, restartCount: 0 });
    expect(Date.parse(String(s.state!.running!.startedAt))).toBeGreaterThan(0);
    await node.core.deleteNamespacedPod({ name: 'runs', namespace: ns });
  });

  it(
    'restarts the containers of an Always pod after a back-off, staying Running',
    { timeout: 60_000 },
    async () => {
      await node.core.createNamespacedPod({
        namespace: ns,
        body: pod('always', {
          restartPolicy: 'Always',
          containers: [container({ command: ['sh', '-c', 'exit 0'] })],
        }),
      });
      const p = await until(
        () => node.core.readNamespacedPod({ name: 'always', namespace: ns }),
        (x) => (x.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2,
        'two restarts (back-off 1 s, then 2 s)',
        20_000,
      );
      expect(p.status?.phase).toBe('Running');
      expect(p.status!.containerStatuses![0]!.lastState?.terminated).toMatchObject({
        exitCode: 0,
        reason: 'Completed',
      });
      await node.core.deleteNamespacedPod({ name: 'always', namespace: ns });
    },
  );

  // htpasswd (apache2-utils) makes the registry's users.
  it.skipIf(authMissing !== undefined)(
    "pulls from a private registry with the pod's imagePullSecrets",
    { timeout: 90_000 },
    async () => {
      const privateRegistry = await startRegistry({ users: { alice: 's3cret' } });
      try {
        const image = await fx.pushTo(privateRegistry.host, { username: 'alice', password: 's3cret' });
        const auths = { [privateRegistry.host]: { username: 'alice', password: 's3cret' } };
        await node.core.createNamespacedSecret({
          namespace: ns,
          body: {
            metadata: { name: 'pull' },
            type: 'kubernetes.io/dockerconfigjson',
            stringData: { '.dockerconfigjson': JSON.stringify({ auths }) },
          },
        });
        const spec = (pullSecret?: string) => ({
          ...(pullSecret ? { imagePullSecrets: [{ name: pullSecret }] } : {}),
          containers: [{ name: 'main', image, command: ['true'] }],
        });
        await node.core.createNamespacedPod({ namespace: ns, body: pod('anonymous', spec()) });
        const refused = await until(
          () => node.core.readNamespacedPod({ name: 'anonymous', namespace: ns }),
          (x) => x.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull',
          'ErrImagePull without the secret',
        );
        expect(refused.status!.containerStatuses![0]!.state!.waiting!.message).toMatch(
          /requires credentials/,
        );
        await node.core.createNamespacedPod({ namespace: ns, body: pod('with-secret', spec('pull')) });
        await untilPhase(node.core, ns, 'with-secret', ['Succeeded']);
      } finally {
        await privateRegistry.stop();
      }
    },
  );

  it('leaves a pod whose image cannot be pulled waiting with ErrImagePull', { timeout: 60_000 }, async () => {
    const missing = `${fx.registry.host}/sandflow/no-such-image:1`;
    await node.core.createNamespacedPod({
      namespace: ns,
      body: pod('bad-image', { containers: [container({ image: missing })] }),
    });
    const p = await until(
      () => node.core.readNamespacedPod({ name: 'bad-image', namespace: ns }),
      (x) => x.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull',
      'ErrImagePull',
    );
    expect(p.status?.phase).toBe('Pending');
    expect(p.status!.containerStatuses![0]!.state!.waiting!.message).toContain(
      `failed to pull image "${missing}"`,
    );
  });

  it.each([
    {
      what: 'a shell that ends on SIGTERM',
      script: "trap 'exit 0' TERM; while true; do sleep 1; done",
      grace: 30,
      // SIGTERM reaches the shell's sleep and then the shell: gone long before the grace ends.
      within: [0, 2_500],
    },
    {
      what: 'a shell that ignores SIGTERM',
      script: "trap '' TERM; while true; do sleep 1; done",
      grace: 30,
      // SIGKILL after the grace period, capped at 3 s.
      within: [2_500, 8_000],
    },
  ])(
    'stops $what when its pod is deleted, and removes its folders',
    { timeout: 60_000 },
    async ({ script, grace, within }) => {
      const marker = `kubelet-delete-${Date.now()}`;
      const name = `deleted-${within[0]}`;
      await node.core.createNamespacedPod({
        namespace: ns,
        body: pod(name, {
          terminationGracePeriodSeconds: grace,
          containers: [container({ command: ['sh', '-c', `${script} # ${marker}`] })],
        }),
      });
      const p = await untilPhase(node.core, ns, name, ['Running']);
      const dir = path.join(fx.dataDir, 'kubelet', 'pods', p.metadata!.uid!);
      expect(fs.existsSync(path.join(dir, 'containers', 'main', 'rootfs', 'bin', 'busybox'))).toBe(true);
      await until(
        async () => processesWith(marker),
        (x) => x.length >= 2,
        'the shell inside bwrap',
        5_000,
      );
      const started = Date.now();
      await node.core.deleteNamespacedPod({ name, namespace: ns });
      await until(
        async () => ({ procs: processesWith(marker), dir: fs.existsSync(dir) }),
        (x) => x.procs.length === 0 && !x.dir,
        'the processes and folder to be gone',
        10_000,
      );
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(within[0]!);
      expect(took).toBeLessThan(within[1]!);
    },
  );

  it(
    'marks the pods of a previous process Failed (NodeLost) after a restart',
    { timeout: 120_000 },
    async () => {
      const marker = `kubelet-restart-${Date.now()}`;
      await node.core.createNamespacedPod({
        namespace: ns,
        body: pod('lost', {
          restartPolicy: 'Always',
          containers: [container({ command: ['sh', '-c', `sleep 3600 # ${marker}`] })],
        }),
      });
      const p = await untilPhase(node.core, ns, 'lost', ['Running']);
      await node.core.createNamespacedPod({
        namespace: ns,
        body: pod('finished-before', { containers: [container({ command: ['sh', '-c', 'echo once'] })] }),
      });
      await untilPhase(node.core, ns, 'finished-before', ['Succeeded']);
      await node.stop();
      expect(processesWith(marker)).toEqual([]);
      node = await fx.boot();
      const after = await untilPhase(node.core, ns, 'lost', ['Failed'], 10_000);
      expect(after.status).toMatchObject({ phase: 'Failed', reason: 'NodeLost' });
      expect(after.status?.containerStatuses?.[0]).toMatchObject({
        ready: false,
        state: { terminated: { exitCode: 137, reason: 'NodeLost' } },
      });
      expect(after.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
      expect(after.metadata?.uid).toBe(p.metadata?.uid);
      expect(fs.existsSync(path.join(fx.dataDir, 'kubelet', 'pods', p.metadata!.uid!))).toBe(false);
      // Not run again: a finished pod stays as it was across the restart.
      const finished = await node.core.readNamespacedPod({ name: 'finished-before', namespace: ns });
      expect(finished.status?.phase).toBe('Succeeded');
      expect(finished.status?.reason).toBeUndefined();
    },
  );
});
