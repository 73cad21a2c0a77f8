// `pods/exec` into Pods run by kube-lite's kubelet, through the clients that use it for real:
// @kubernetes/client-node's Exec (what the cluster-mode sandbox builder uses) and kubectl 1.32.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable, Writable } from 'node:stream';
import { promisify } from 'node:util';
import { Exec, type V1Status } from '@kubernetes/client-node';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { kubeletMissing, setUp, until, untilPhase, type Fixture, type Node } from './test-fixture.js';

if (kubeletMissing.length > 0)
  console.warn(`kubelet exec tests skipped: ${kubeletMissing.join(' and ')} not installed`);

const ns = 'default';
const POD = 'shell';
let fx: Fixture;
let node: Node;

/** A Writable that keeps every byte written to it. */
function sink() {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(Buffer.from(chunk));
      cb();
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks), text: () => Buffer.concat(chunks).toString('utf8') };
}

interface ExecResult {
  stdout: Buffer;
  stderr: string;
  status: V1Status;
}

/** Runs a command through client-node's Exec (no TTY); resolves once the socket closes. */
async function exec(command: string[], stdin?: Buffer, container = 'main'): Promise<ExecResult> {
  const out = sink();
  const err = sink();
  let status: V1Status | undefined;
  const ws = await new Exec(node.kc).exec(
    ns,
    POD,
    container,
    command,
    out.stream,
    err.stream,
    stdin ? Readable.from([stdin]) : null,
    false,
    (s) => (status = s),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`exec ${command.join(' ')} did not end in 20 s`)),
      20_000,
    );
    ws.on('close', () => (clearTimeout(timer), resolve()));
  });
  if (!status) throw new Error(`exec ${command.join(' ')} closed without a status`);
  return { stdout: out.bytes(), stderr: err.text(), status };
}

/** An upgrade kube-lite refuses: its HTTP status and Status body. */
function refusal(path: string, protocols: string[] = ['v5.channel.k8s.io'], token = node.kubeLite.token) {
  return new Promise<{ code: number; body: { reason?: string; message?: string } }>((resolve, reject) => {
    const ws = new WebSocket(`${node.kubeLite.url.replace('https', 'wss')}${path}`, protocols, {
      ca: node.kubeLite.caCert,
      headers: { Authorization: `Bearer ${token}` },
    });
    ws.on('open', () => (ws.close(), reject(new Error(`${path} was upgraded`))));
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ code: res.statusCode!, body: JSON.parse(body) as { reason?: string } }));
    });
  });
}

const run = promisify(execFile);

/** kubectl against kube-lite: stdout, stderr and its exit code. */
async function kubectl(args: string[], input?: string) {
  const child = execFile('kubectl', ['--kubeconfig', node.kubeLite.kubeconfigPath!, ...args], {
    timeout: 30_000,
  });
  if (input !== undefined) child.stdin!.end(input);
  else child.stdin!.end();
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { stdout, stderr, code };
}

describe.skipIf(kubeletMissing.length > 0)('kube-lite kubelet: pods/exec', () => {
  beforeAll(async () => {
    fx = await setUp('kubelet-exec-');
    node = await fx.boot();
    await node.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: POD },
        spec: {
          terminationGracePeriodSeconds: 1,
          volumes: [{ name: 'scratch', emptyDir: {} }],
          containers: [
            {
              name: 'main',
              image: fx.image,
              command: ['sleep', '3600'],
              env: [{ name: 'WHO', value: 'the container' }],
              workingDir: '/sandflow',
              securityContext: { runAsUser: 1000, runAsGroup: 1000 },
              volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
            },
            { name: 'side', image: fx.image, command: ['sleep', '3600'] },
          ],
        },
      },
    });
    await untilPhase(node.core, ns, POD, ['Running']);
    await node.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'done' },
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: fx.image, command: ['sh', '-c', 'echo one; echo two >&2'] }],
        },
      },
    });
    await untilPhase(node.core, ns, 'done', ['Succeeded']);
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
    await fx?.cleanup();
  });

  it.each([
    {
      command: ['sh', '-c', 'echo out; echo err >&2'],
      stdout: 'out\n',
      stderr: 'err\n',
      status: { status: 'Success' },
    },
    {
      command: ['sh', '-c', 'echo "$WHO $(id -u):$(id -g) $(pwd)"; exit 7'],
      stdout: 'the container 1000:1000 /sandflow\n',
      stderr: '',
      status: {
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '7' }] },
      },
    },
    {
      command: ['sh', '-c', 'touch /scratch/seen && ls /scratch'],
      stdout: 'seen\n',
      stderr: '',
      status: { status: 'Success' },
    },
  ])('runs $command with stdout and stderr apart', { timeout: 30_000 }, async ({ command, ...want }) => {
    const got = await exec(command);
    expect(got.stdout.toString('utf8')).toBe(want.stdout);
    expect(got.stderr).toBe(want.stderr);
    expect(got.status).toMatchObject(want.status);
  });

  it(
    'pipes stdin byte-exact: a tar sent in is unpacked, and cat gives the bytes back',
    { timeout: 60_000 },
    async () => {
      // Larger than the socket's high-water mark (4 MiB) both ways: stdin and stdout wait and go on.
      const blob = Buffer.concat([randomBytes(6_000_000), Buffer.from([0, 255, 13, 10, 26, 4])]);
      const pack = tar.pack();
      pack.entry({ name: 'upload/blob.bin', mode: 0o644 }, blob);
      pack.entry({ name: 'upload/note.txt', mode: 0o644 }, 'é → ✓\n');
      pack.finalize();
      const chunks: Buffer[] = [];
      for await (const c of pack) chunks.push(c as Buffer);
      const untar = await exec(['sh', '-c', 'tar x -C /tmp && ls /tmp/upload'], Buffer.concat(chunks));
      expect(untar.stderr).toBe('');
      expect(untar.status).toMatchObject({ status: 'Success' });
      expect(untar.stdout.toString()).toBe('blob.bin\nnote.txt\n');
      const back = await exec(['cat', '/tmp/upload/blob.bin']);
      expect(back.stdout.equals(blob)).toBe(true);
      const zeros = await exec(['head', '-c', '30000000', '/dev/zero']);
      expect(zeros.stdout.length).toBe(30_000_000);
      expect(zeros.stdout.every((b) => b === 0)).toBe(true);
      // The same root as the container's: another container of the Pod does not see it.
      const side = await exec(['ls', '/tmp/upload'], undefined, 'side');
      expect(side.status).toMatchObject({ status: 'Failure' });
    },
  );

  it('runs a shell under a TTY that echoes and honours resizes', { timeout: 60_000 }, async () => {
    const stdin = new PassThrough();
    const stdout = Object.assign(new PassThrough(), { columns: 100, rows: 30 });
    let text = '';
    stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
    let status: V1Status | undefined;
    const ws = await new Exec(node.kc).exec(ns, POD, 'main', ['sh'], stdout, null, stdin, true, (s) => {
      status = s;
    });
    const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
    const seen = (pattern: RegExp, what: string) =>
      until(
        async () => text,
        (t) => pattern.test(t),
        what,
        15_000,
      );
    await seen(/\/sandflow \$ /, 'the prompt in the working folder');
    stdin.write('echo $((6*7))\r');
    await seen(/echo \$\(\(6\*7\)\)\r\n42\r\n/, 'the echoed command and 42');
    stdin.write('stty size\r');
    await seen(/\r\n30 100\r\n/, 'stty size 30 100');
    Object.assign(stdout, { columns: 120, rows: 40 });
    stdout.emit('resize');
    await new Promise((r) => setTimeout(r, 200));
    stdin.write('stty size\r');
    await seen(/\r\n40 120\r\n/, 'stty size 40 120 after the resize');
    stdin.write('exit 3\r');
    await closed;
    expect(status).toMatchObject({
      status: 'Failure',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
  });

  it.each([
    {
      what: 'an unknown pod',
      path: `/api/v1/namespaces/${ns}/pods/nope/exec?command=true&stdout=true`,
      code: 404,
      message: 'pods "nope" not found',
    },
    {
      what: 'an unknown container',
      path: `/api/v1/namespaces/${ns}/pods/${POD}/exec?command=true&stdout=true&container=nope`,
      code: 400,
      message: `container nope is not valid for pod ${POD}`,
    },
    {
      what: 'a pod not running',
      path: `/api/v1/namespaces/${ns}/pods/done/exec?command=true&stdout=true&container=main`,
      code: 400,
      message: 'container not running',
    },
    {
      what: 'no container named in a pod of two',
      path: `/api/v1/namespaces/${ns}/pods/${POD}/exec?command=true&stdout=true`,
      code: 400,
      message: `a container name must be specified for pod ${POD}, choose one of: [main side]`,
    },
    {
      what: 'no subprotocol served',
      path: `/api/v1/namespaces/${ns}/pods/${POD}/exec?command=true&stdout=true&container=main`,
      protocols: ['v3.channel.k8s.io', 'channel.k8s.io'],
      code: 400,
      message: 'v5.channel.k8s.io, v4.channel.k8s.io',
    },
    {
      what: 'a wrong token',
      path: `/api/v1/namespaces/${ns}/pods/${POD}/exec?command=true&stdout=true&container=main`,
      token: 'wrong',
      code: 401,
      message: 'Unauthorized',
    },
  ])('refuses $what with a Status', async ({ path, protocols, token, code, message }) => {
    const got = await refusal(path, protocols, token);
    expect(got.code).toBe(code);
    expect(got.body.message).toContain(message);
  });

  it('serves v4.channel.k8s.io to a client that offers only it', { timeout: 30_000 }, async () => {
    const ws = new WebSocket(
      `${node.kubeLite.url.replace('https', 'wss')}/api/v1/namespaces/${ns}/pods/${POD}/exec?command=echo&command=v4&stdout=true&container=main`,
      ['v4.channel.k8s.io'],
      { ca: node.kubeLite.caCert, headers: { Authorization: `Bearer ${node.kubeLite.token}` } },
    );
    const frames: Buffer[] = [];
    ws.on('message', (d: Buffer) => frames.push(d));
    await new Promise<void>((resolve, reject) => {
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    expect(ws.protocol).toBe('v4.channel.k8s.io');
    expect(frames[0]).toEqual(Buffer.from('\x01v4\n'));
    expect(JSON.parse(frames.at(-1)!.subarray(1).toString())).toEqual({ metadata: {}, status: 'Success' });
  });

  it('works with kubectl exec and kubectl get pods', { timeout: 60_000 }, async () => {
    const exited = await kubectl(['exec', POD, '-c', 'main', '--', 'sh', '-c', 'echo hi; exit 4']);
    expect(exited).toMatchObject({ stdout: 'hi\n', code: 4 });
    const piped = await kubectl(
      ['exec', '-i', POD, '-c', 'main', '--', 'sh', '-c', 'cat; echo end'],
      'from stdin\n',
    );
    expect(piped).toMatchObject({ stdout: 'from stdin\nend\n', code: 0 });
    const listed = await kubectl(['get', 'pods']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${POD}\\s+Running\\s+0\\s+\\d+s$`, 'm'));
    expect(listed.stdout).toMatch(/^done\s+Succeeded\s/m);
    expect(await kubectl(['logs', 'done'])).toMatchObject({ stdout: 'one\ntwo\n', code: 0 });
    expect(await kubectl(['logs', 'done', '--tail=1'])).toMatchObject({ stdout: 'two\n', code: 0 });
    const { stdout } = await run('kubectl', [
      '--kubeconfig',
      node.kubeLite.kubeconfigPath!,
      'get',
      'po',
      POD,
      '-o',
      'jsonpath={.status.containerStatuses[*].ready}',
    ]);
    expect(stdout).toBe('true true');
  });
});
