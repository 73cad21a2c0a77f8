// `pods/log` of kube-lite's kubelet: the CRI log files (pod-log.ts) written and read on their own,
// then real Pods served over HTTP and through kubectl 1.32 (`logs -f`, `--since`, `--timestamps`,
// `-p`), with what a follow holds (file handles, wake-ups) released when its client goes away.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusError } from '../errors.js';
import type { ContainerStatus } from './container-status.js';
import {
  ContainerLog,
  MAX_RECORD,
  formatNs,
  logFollowers,
  logRun,
  parseLogOptions,
  parseRfc3339,
  readContainerLog,
} from './pod-log.js';
import { kubeletMissing, setUp, until, untilPhase, type Fixture, type Node } from './test-fixture.js';

if (kubeletMissing.length > 0)
  console.warn(`kubelet pods/log tests skipped: ${kubeletMissing.join(' and ')} not installed`);

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/;

/** The file descriptors of this process open on `file`. */
function fdsOn(file: string): number {
  let n = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === file) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

async function collect(it: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of it) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

/** What the kubelet keeps of a container with this state, for logRun. */
const status = (over: Partial<ContainerStatus>): ContainerStatus => ({
  name: 'main',
  image: 'busybox',
  imageID: '',
  ready: false,
  started: false,
  restartCount: 0,
  state: { waiting: { reason: 'ContainerCreating' } },
  lastState: {},
  ...over,
});
const id = (run: number) => `kube-lite://uid/main/${run}`;
const ended = (run: number) => ({
  terminated: { exitCode: 1, reason: 'Error', finishedAt: '2026-11-24T00:00:00Z', containerID: id(run) },
});

describe('pod-log: options, runs and CRI files', () => {
  const now = () => 10_000_000_000_000n;

  it.each([
    { query: '', want: { follow: false, previous: false, timestamps: false, since: undefined } },
    {
      query: 'follow=true&previous=1&timestamps=True',
      want: { follow: true, previous: true, timestamps: true },
    },
    {
      query: 'follow=false&previous=0&timestamps=F',
      want: { follow: false, previous: false, timestamps: false },
    },
    { query: 'tailLines=0&limitBytes=5', want: { tailLines: 0, limitBytes: 5 } },
    { query: 'sinceSeconds=10', want: { since: 10_000_000_000_000n - 10_000_000_000n } },
    { query: 'sinceTime=2026-11-24T08:00:00Z', want: { since: 1_795_507_200_000_000_000n } },
    { query: 'sinceTime=2026-11-24T09:00:00.5%2B01:00', want: { since: 1_795_507_200_500_000_000n } },
    { query: 'container=side', want: { container: 'side' } },
  ])('reads "$query"', ({ query, want }) => {
    expect(parseLogOptions('p', new URLSearchParams(query), now)).toMatchObject(want);
  });

  it.each([
    {
      query: 'tailLines=-3',
      code: 422,
      message:
        'PodLogOptions "p" is invalid: tailLines: Invalid value: -3: must be greater than or equal to 0',
    },
    {
      query: 'sinceSeconds=0',
      code: 422,
      message: 'PodLogOptions "p" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0',
    },
    {
      query: 'limitBytes=0',
      code: 422,
      message: 'PodLogOptions "p" is invalid: limitBytes: Invalid value: 0: must be greater than 0',
    },
    {
      query: 'sinceSeconds=5&sinceTime=2026-11-24T08:00:00Z',
      code: 422,
      message:
        'PodLogOptions "p" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
    },
    {
      query: 'sinceSeconds=abc',
      code: 400,
      message: 'sinceSeconds: Invalid value: "abc": strconv.ParseInt: parsing "abc": invalid syntax',
    },
    {
      query: 'tailLines=1.5',
      code: 400,
      message: 'tailLines: Invalid value: "1.5": strconv.ParseInt: parsing "1.5": invalid syntax',
    },
    {
      query: 'limitBytes=99999999999999999999',
      code: 400,
      message:
        'limitBytes: Invalid value: "99999999999999999999": strconv.ParseInt: parsing "99999999999999999999": value out of range',
    },
    {
      query: 'sinceTime=yesterday',
      code: 400,
      message:
        'sinceTime: Invalid value: "yesterday": parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": not an RFC3339 time',
    },
    {
      query: 'sinceTime=2026-02-30T00:00:00Z',
      code: 400,
      message: /^sinceTime: Invalid value: "2026-02-30T00:00:00Z": /,
    },
  ])('refuses "$query" with $code', ({ query, code, message }) => {
    let error: unknown;
    try {
      parseLogOptions('p', new URLSearchParams(query), now);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).code).toBe(code);
    expect((error as StatusError).message).toMatch(message);
  });

  it.each([
    { what: 'running', s: status({ containerID: id(2), state: { running: { startedAt: 'x' } } }), run: 2 },
    {
      what: 'running, previous',
      s: status({ containerID: id(2), state: { running: { startedAt: 'x' } }, lastState: ended(1) }),
      previous: true,
      run: 1,
    },
    { what: 'terminated', s: status({ state: ended(0) }), run: 0 },
    {
      what: 'in back-off (CrashLoopBackOff)',
      s: status({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: ended(3) }),
      run: 3,
    },
    {
      what: 'in back-off, previous',
      s: status({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: ended(3) }),
      previous: true,
      run: 3,
    },
    {
      what: 'never restarted, previous',
      s: status({ containerID: id(0), state: { running: { startedAt: 'x' } } }),
      previous: true,
      error: 'previous terminated container "main" in pod "p" not found',
    },
    {
      what: 'waiting for its config',
      s: status({ state: { waiting: { reason: 'CreateContainerConfigError' } } }),
      error: 'container "main" in pod "p" is waiting to start: CreateContainerConfigError',
    },
    {
      what: 'waiting for its image',
      s: status({ state: { waiting: { reason: 'ImagePullBackOff' } } }),
      error: 'container "main" in pod "p" is waiting to start: trying and failing to pull image',
    },
  ])('picks the run of a container $what', ({ s, previous, run, error }) => {
    if (error) expect(() => logRun(s, 'p', previous ?? false)).toThrow(error);
    else expect(logRun(s, 'p', previous ?? false)).toBe(run);
  });

  describe('files', () => {
    let dir: string;
    let file: string;
    let times: bigint[];
    const long = 'x'.repeat(MAX_RECORD + 10);
    const all = `one\ntwo\n${long}\nlast\n`;
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pod-log-'));
      file = path.join(dir, '0.log');
      const log = new ContainerLog(file);
      // Bytes as a pipe gives them: lines cut anywhere, a long one, the last without "\n".
      for (const piece of ['on', 'e\ntw', `o\n${long.slice(0, 9000)}`, `${long.slice(9000)}\nla`, 'st']) {
        log.write(Buffer.from(piece));
      }
      log.end();
      times = fs
        .readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => parseRfc3339(l.split(' ')[0]!)!);
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('stores CRI records: time, stream, P for the pieces of a long line, F at its end and at EOF', () => {
      const records = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(records.map((r) => r.split(' ').slice(1, 3).join(' '))).toEqual([
        'stdout F',
        'stdout F',
        'stdout P',
        'stdout F',
        'stdout F',
      ]);
      expect(records.every((r) => TS.test(r.split(' ')[0]!))).toBe(true);
      expect(records[2]!.split(' ')[3]).toHaveLength(MAX_RECORD);
      expect([...times].sort((a, b) => (a < b ? -1 : 1))).toEqual(times);
      expect(new Set(times).size).toBe(times.length);
    });

    it.each([
      { what: 'everything', options: {}, want: (): string => all },
      {
        what: 'the last 2 records',
        options: { tailLines: 2 },
        want: (): string => `${long.slice(MAX_RECORD)}\nlast\n`,
      },
      { what: 'no record', options: { tailLines: 0 }, want: (): string => '' },
      {
        what: '3 records: a line cut in two',
        options: { tailLines: 3 },
        want: (): string => `${long}\nlast\n`,
      },
      { what: 'the first 6 bytes', options: { limitBytes: 6 }, want: (): string => 'one\ntw' },
      { what: 'since the second record', options: { since: 1 }, want: (): string => `two\n${long}\nlast\n` },
      {
        what: 'with timestamps, once per line',
        options: { timestamps: true },
        want: (): string =>
          [
            `${formatNs(times[0]!)} one\n`,
            `${formatNs(times[1]!)} two\n`,
            `${formatNs(times[2]!)} ${long}\n`,
            `${formatNs(times[4]!)} last\n`,
          ].join(''),
      },
      {
        what: 'with timestamps, limited (the timestamps count)',
        options: { timestamps: true, limitBytes: 34 },
        want: (): string => `${formatNs(times[0]!)} one`,
      },
    ])('reads $what', async ({ options, want }) => {
      const since = 'since' in options ? times[options.since as number] : undefined;
      const got = await collect(
        readContainerLog(file, { follow: false, ...options, since }, new AbortController().signal),
      );
      expect(got).toBe(want());
    });

    it('reads nothing from a run that left no file', async () => {
      const got = await collect(
        readContainerLog(path.join(dir, 'none.log'), { follow: true }, new AbortController().signal),
      );
      expect(got).toBe('');
    });

    it('follows a file until its writer ends, and lets go of it when the reader aborts', async () => {
      const live = path.join(dir, 'live.log');
      const log = new ContainerLog(live);
      log.write(Buffer.from('before\n'));
      const seen: string[] = [];
      const following = (async () => {
        for await (const chunk of readContainerLog(live, { follow: true }, new AbortController().signal))
          seen.push(chunk.toString());
      })();
      await until(
        async () => seen.join(''),
        (s) => s === 'before\n',
        'the first line',
      );
      expect(logFollowers()).toBe(1);
      log.write(Buffer.from('after\nunfinished'));
      await until(
        async () => seen.join(''),
        (s) => s === 'before\nafter\n',
        'the written line',
      );
      log.end();
      await following;
      expect(seen.join('')).toBe('before\nafter\nunfinished\n');
      expect(logFollowers()).toBe(0);
      expect(fdsOn(live)).toBe(0);

      const again = new ContainerLog(live);
      const stop = new AbortController();
      const reader = collect(readContainerLog(live, { follow: true, tailLines: 1 }, stop.signal));
      await until(
        async () => logFollowers(),
        (n) => n === 1,
        'the follow to wait',
      );
      expect(fdsOn(live)).toBe(2);
      stop.abort();
      expect(await reader).toBe('unfinished\n');
      expect(logFollowers()).toBe(0);
      expect(fdsOn(live)).toBe(1);
      again.end();
      expect(fdsOn(live)).toBe(0);
    });

    it('ends a follow once limitBytes went out, the run still writing', async () => {
      const live = path.join(dir, 'limited.log');
      const log = new ContainerLog(live);
      log.write(Buffer.from('abc\n'));
      const reader = collect(
        readContainerLog(live, { follow: true, limitBytes: 6 }, new AbortController().signal),
      );
      await until(
        async () => logFollowers(),
        (n) => n === 1,
        'the follow to wait',
      );
      log.write(Buffer.from('defgh\n'));
      expect(await reader).toBe('abc\nde');
      expect(logFollowers()).toBe(0);
      expect(fdsOn(live)).toBe(1);
      log.end();
    });
  });
});

// ---------------------------------------------------------------------------------------------

const ns = 'default';
let fx: Fixture;
let node: Node;
let hostDir: string;

const pod = (name: string, script: string, spec: Record<string, unknown> = {}): V1Pod => ({
  metadata: { name },
  spec: {
    restartPolicy: 'Never',
    terminationGracePeriodSeconds: 1,
    volumes: [{ name: 'host', hostPath: { path: hostDir, type: 'Directory' } }],
    containers: [
      {
        name: 'main',
        image: fx.image,
        command: ['sh', '-c', script],
        volumeMounts: [{ name: 'host', mountPath: '/h' }],
      },
    ],
    ...spec,
  },
});

/** A GET of kube-lite over HTTPS: status code and body. */
function get(pathAndQuery: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      `${node.kubeLite.url}${pathAndQuery}`,
      { ca: node.kubeLite.caCert, headers: { Authorization: `Bearer ${node.kubeLite.token}` } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ code: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
  });
}
const logPath = (name: string, query = '') => `/api/v1/namespaces/${ns}/pods/${name}/log?${query}`;

/** kubectl against kube-lite: stdout, stderr and its exit code. */
function kubectl(args: string[]) {
  return new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
    execFile(
      'kubectl',
      ['--kubeconfig', node.kubeLite.kubeconfigPath!, ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) => resolve({ stdout, stderr, code: error ? (error.code as number) : 0 }),
    );
  });
}

describe.skipIf(kubeletMissing.length > 0)('kube-lite kubelet: pods/log', () => {
  let lines: V1Pod;
  /** The times of the lines of the `lines` Pod, from `timestamps=true`. */
  let stamps: string[];

  beforeAll(async () => {
    fx = await setUp('kubelet-logs-');
    hostDir = path.join(fx.tmp, 'host');
    fs.mkdirSync(hostDir);
    node = await fx.boot();
    await node.core.createNamespacedPod({
      namespace: ns,
      body: pod('lines', 'echo one; echo two >&2; echo three; echo four >&2; printf five'),
    });
    lines = await untilPhase(node.core, ns, 'lines', ['Succeeded', 'Failed']);
    const stamped = await get(logPath('lines', 'timestamps=true'));
    stamps = stamped.body
      .trimEnd()
      .split('\n')
      .map((l) => l.split(' ')[0]!);
  }, 180_000);
  afterAll(async () => {
    await node?.stop();
    await fx?.cleanup();
  });

  it('keeps stdout and stderr in the order written, each line with its time', async () => {
    expect(lines.status?.phase).toBe('Succeeded');
    expect(await node.core.readNamespacedPodLog({ name: 'lines', namespace: ns })).toBe(
      'one\ntwo\nthree\nfour\nfive\n',
    );
    expect(stamps).toHaveLength(5);
    for (const s of stamps) expect(s).toMatch(TS);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it.each([
    { query: '', code: 200, body: 'one\ntwo\nthree\nfour\nfive\n' },
    { query: 'tailLines=2', code: 200, body: 'four\nfive\n' },
    { query: 'tailLines=0', code: 200, body: '' },
    { query: 'limitBytes=6', code: 200, body: 'one\ntw' },
    { query: 'sinceSeconds=3600', code: 200, body: 'one\ntwo\nthree\nfour\nfive\n' },
    { query: 'sinceTime=$THIRD', code: 200, body: 'three\nfour\nfive\n' },
    { query: 'sinceTime=$THIRD&tailLines=4&timestamps=true', code: 200, body: '$STAMPED_FROM_THIRD' },
    {
      query: 'previous=true',
      code: 400,
      body: 'previous terminated container "main" in pod "lines" not found',
    },
    {
      query: 'tailLines=-3',
      code: 422,
      body: 'PodLogOptions "lines" is invalid: tailLines: Invalid value: -3: must be greater than or equal to 0',
    },
    {
      query: 'sinceSeconds=0',
      code: 422,
      body: 'PodLogOptions "lines" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0',
    },
    {
      query: 'sinceSeconds=abc',
      code: 400,
      body: 'sinceSeconds: Invalid value: "abc": strconv.ParseInt: parsing "abc": invalid syntax',
    },
    {
      query: 'sinceTime=yesterday',
      code: 400,
      body: 'sinceTime: Invalid value: "yesterday": parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": not an RFC3339 time',
    },
    {
      query: 'sinceSeconds=10&sinceTime=$THIRD',
      code: 422,
      body: 'PodLogOptions "lines" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
    },
    { query: 'container=other', code: 400, body: 'container other is not valid for pod lines' },
  ])('GET pods/log?$query answers $code', { timeout: 30_000 }, async ({ query, code, body }) => {
    const q = query.replaceAll('$THIRD', encodeURIComponent(stamps[2]!));
    const res = await get(logPath('lines', q));
    expect(res.code).toBe(code);
    if (code === 200) {
      const words = ['three', 'four', 'five'];
      const want =
        body === '$STAMPED_FROM_THIRD' ? words.map((w, i) => `${stamps[i + 2]} ${w}\n`).join('') : body;
      expect(res.body).toBe(want);
    } else {
      expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', code, message: body });
    }
  });

  it('leaves out lines older than sinceSeconds', { timeout: 30_000 }, async () => {
    // The last line was written before the Pod ended; 2 s on, a 1-second window holds none.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await get(logPath('lines', 'sinceSeconds=1'))).toEqual({ code: 200, body: '' });
  });

  it(
    'serves the previous run of a restarted container (-p), the current one without',
    { timeout: 90_000 },
    async () => {
      await node.core.createNamespacedPod({
        namespace: ns,
        body: pod(
          'restarted',
          'n=$(cat /h/runs 2>/dev/null || echo 0); echo $((n + 1)) > /h/runs; echo run-$n; [ $n -ge 1 ] || exit 1; exec sleep 3600',
          { restartPolicy: 'OnFailure' },
        ),
      });
      await until(
        () => node.core.readNamespacedPod({ name: 'restarted', namespace: ns }),
        (p) => {
          const s = p.status?.containerStatuses?.[0];
          return s?.restartCount === 1 && s.state?.running !== undefined;
        },
        'the second run',
      );
      expect(
        await until(
          () => kubectl(['logs', 'restarted']),
          (r) => r.stdout === 'run-1\n',
          'the second run to write',
        ),
      ).toMatchObject({ code: 0, stdout: 'run-1\n' });
      expect(await kubectl(['logs', '-p', 'restarted'])).toMatchObject({ code: 0, stdout: 'run-0\n' });
      const never = await kubectl(['logs', '-p', 'lines']);
      expect(never.code).not.toBe(0);
      expect(never.stderr).toContain('previous terminated container "main" in pod "lines" not found');
      await node.core.deleteNamespacedPod({ name: 'restarted', namespace: ns });
    },
  );

  it('kubectl logs --since --timestamps prefixes each line with its time', { timeout: 30_000 }, async () => {
    const r = await kubectl(['logs', '--since=1h', '--timestamps', 'lines']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      ['one', 'two', 'three', 'four', 'five'].map((w, i) => `${stamps[i]} ${w}\n`).join(''),
    );
    const since = await kubectl(['logs', '--since-time', stamps[4]!.replace(/\.\d+Z$/, 'Z'), 'lines']);
    expect(since.code).toBe(0);
    expect(since.stdout).toMatch(/(^|\n)five\n$/);
  });

  it(
    'kubectl logs -f streams lines as they are written and exits when the container ends',
    { timeout: 90_000 },
    async () => {
      const go = path.join(hostDir, 'go');
      await node.core.createNamespacedPod({
        namespace: ns,
        body: pod(
          'follow',
          'echo first; while [ ! -e /h/go ]; do sleep 1; done; echo second >&2; echo third',
        ),
      });
      await untilPhase(node.core, ns, 'follow', ['Running']);
      const child = spawn('kubectl', ['--kubeconfig', node.kubeLite.kubeconfigPath!, 'logs', '-f', 'follow']);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      try {
        await until(
          async () => stdout,
          (s) => s === 'first\n',
          'kubectl to print the first line',
          30_000,
        );
        // The container waits for /h/go: kubectl is still following.
        expect(child.exitCode).toBeNull();
        fs.writeFileSync(go, '');
        expect(await exited).toBe(0);
        expect({ stdout, stderr }).toEqual({ stdout: 'first\nsecond\nthird\n', stderr: '' });
      } finally {
        child.kill();
      }
    },
  );

  it(
    'lets go of a follow when its client goes away, and ends it when the Pod is deleted',
    { timeout: 90_000 },
    async () => {
      const p = await node.core.createNamespacedPod({
        namespace: ns,
        body: pod('long', 'echo hello; exec sleep 3600'),
      });
      await untilPhase(node.core, ns, 'long', ['Running']);
      const file = path.join(fx.dataDir, 'kubelet', 'pods', p.metadata!.uid!, 'logs', 'main', '0.log');
      await until(
        async () => fs.existsSync(file) && fs.readFileSync(file, 'utf8'),
        (s) => !!s,
        'hello',
      );
      expect(fdsOn(file)).toBe(1); // the writer's

      const follow = () => {
        let body = '';
        let ended = false;
        let headers: http.IncomingHttpHeaders = {};
        const req = https.get(
          `${node.kubeLite.url}${logPath('long', 'follow=true')}`,
          { ca: node.kubeLite.caCert, headers: { Authorization: `Bearer ${node.kubeLite.token}` } },
          (res) => {
            headers = res.headers;
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => (ended = true));
          },
        );
        req.on('error', () => undefined);
        return { req, body: () => body, ended: () => ended, headers: () => headers };
      };

      const first = follow();
      await until(
        async () => first.body(),
        (b) => b === 'hello\n',
        'the followed line',
      );
      expect(logFollowers()).toBe(1);
      expect(fdsOn(file)).toBe(2);
      expect(first.headers()).toMatchObject({ 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
      first.req.destroy();
      await until(
        async () => ({ followers: logFollowers(), fds: fdsOn(file) }),
        (x) => x.followers === 0 && x.fds === 1,
        'the follow to let go of the file',
      );

      const second = follow();
      await until(
        async () => second.body(),
        (b) => b === 'hello\n',
        'the second follow',
      );
      await node.core.deleteNamespacedPod({ name: 'long', namespace: ns });
      await until(
        async () => second.ended(),
        (e) => e,
        'the follow to end with the Pod',
        30_000,
      );
      expect(second.body()).toBe('hello\n');
      expect(logFollowers()).toBe(0);
      expect(fdsOn(file)).toBe(0);
    },
  );
});
