import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  buildBusyboxImage,
  findBusyboxStatic,
  localImageDir,
  localRootfsProvider,
  type BuiltImage,
} from '@sandflow/images';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BwrapRuntime, findBwrap } from './bwrap.js';
import { overlaySupported } from './overlay.js';
import type { Runtime, StepHandle, StepSpec } from './runtime.js';

const missing = [
  !findBwrap() && 'bwrap (apt-get install bubblewrap)',
  !findBusyboxStatic() && 'busybox-static',
].filter(Boolean);
if (missing.length > 0) console.warn(`bwrap runtime tests skipped: ${missing.join(' and ')} not installed`);

let tmp: string;
let image: BuiltImage;
let rt: BwrapRuntime;
const CUSTOM = 'sandflow/busybox-configured:1';

function step(over: Partial<StepSpec> & { pod: string }): StepSpec {
  return {
    namespace: 'org-a',
    workflow: 'wf-1',
    command: [],
    env: {},
    captureResult: false,
    requests: { cpu: 0, memory: 0 },
    image: image.reference,
    ...over,
  };
}

function runStep(runtime: Runtime, spec: StepSpec): Promise<StepHandle> {
  return new Promise((resolve, reject) => {
    const out = runtime.start(spec, resolve);
    if ('pending' in out) reject(new Error(out.pending));
  });
}

const logOf = (spec: StepSpec) =>
  fs.readFileSync(path.join(tmp, 'runs', rt.logKey(spec.namespace, spec.workflow, spec.pod)), 'utf8');

const sh = (pod: string, script: string, over: Partial<StepSpec> = {}) =>
  step({ pod, command: ['sh', '-c', script], ...over });

// Both ways of giving a step a writable root: an overlay where the kernel allows it, and the copy.
const modes = [
  ...(overlaySupported() ? [{ root: 'overlay', overlay: true }] : []),
  { root: 'copy', overlay: false },
];
if (!overlaySupported())
  console.warn('bwrap runtime tests: overlay mode skipped (no overlayfs in a user namespace here)');

describe.skipIf(missing.length > 0).each(modes)('bwrap runtime, root as $root', ({ overlay }) => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bwrap-rt-'));
    image = await buildBusyboxImage(path.join(tmp, 'images'));
    // A second reference over the same root whose config sets Env, WorkingDir, Entrypoint and Cmd.
    const base = localImageDir(image.unpacked, image.reference, image.architecture);
    const at = localImageDir(image.unpacked, CUSTOM, image.architecture);
    fs.mkdirSync(at, { recursive: true });
    fs.symlinkSync(fs.realpathSync(path.join(base, 'rootfs')), path.join(at, 'rootfs'));
    const config = {
      config: {
        Env: ['FOO=from-image', 'PATH=/bin'],
        WorkingDir: '/etc',
        Entrypoint: ['/bin/sh', '-c'],
        Cmd: ['echo "$FOO in $(pwd)"'],
      },
    };
    fs.writeFileSync(path.join(at, 'config.json'), JSON.stringify(config));
    rt = new BwrapRuntime({
      root: path.join(tmp, 'runs'),
      rootfs: localRootfsProvider(image.unpacked),
      gracePeriodSeconds: 1,
      overlay,
    });
    expect(rt.overlay).toBe(overlay);
  });
  afterAll(async () => {
    await rt?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("sees the image's /etc/os-release, not the host's", async () => {
    const s = sh('os-release', 'cat /etc/os-release');
    const h = await runStep(rt, s);
    expect(h.result?.phase).toBe('Succeeded');
    expect(logOf(s)).toContain('ID=sandflow-busybox');
    expect(logOf(s)).not.toBe(fs.readFileSync('/etc/os-release', 'utf8'));
  });

  it.each([
    { what: 'the data folder', target: () => path.join(tmp, 'runs') },
    { what: 'the repository', target: () => process.cwd() },
    { what: "another run's folder", target: () => rt.sharedDir('org-b', 'other') },
  ])('cannot see $what', async ({ what, target }) => {
    fs.mkdirSync(rt.sharedDir('org-b', 'other'), { recursive: true });
    fs.writeFileSync(path.join(rt.sharedDir('org-b', 'other'), 'secret'), 'token');
    const s = sh(
      `hidden-${what.replace(/\W/g, '')}`,
      `ls -a ${target()} ; cat ${target()}/secret ; test ! -e ${target()}`,
    );
    const h = await runStep(rt, s);
    expect(h.result?.phase).toBe('Succeeded');
    expect(logOf(s)).not.toContain('token');
    expect(logOf(s)).toMatch(/No such file or directory/);
  });

  it('throws away writes outside /sandflow with the step and keeps /sandflow', async () => {
    const first = sh(
      'writer',
      'echo kept > /sandflow/out && echo gone > /etc/written && echo gone > /root/x && cat /etc/written',
    );
    expect((await runStep(rt, first)).result?.phase).toBe('Succeeded');
    expect(logOf(first)).toContain('gone');
    const second = sh(
      'reader',
      'cat /sandflow/out; test ! -e /etc/written && test ! -e /root/x && echo clean',
    );
    expect((await runStep(rt, second)).result?.phase).toBe('Succeeded');
    expect(logOf(second)).toBe('kept\nclean\n');
    expect(fs.readFileSync(path.join(rt.sharedDir('org-a', 'wf-1'), 'out'), 'utf8')).toBe('kept\n');
    expect(fs.existsSync(path.join(rt.runDir('org-a', 'wf-1'), 'writer', 'rootfs'))).toBe(false);
    expect(fs.existsSync(path.join(image.unpacked, '..', 'layers'))).toBe(true);
    const imageRoot = fs.realpathSync(
      path.join(localImageDir(image.unpacked, image.reference, image.architecture), 'rootfs'),
    );
    expect(fs.existsSync(path.join(imageRoot, 'etc/written'))).toBe(false);
  });

  it.each([
    { uid: 1234, gid: 5678 },
    { uid: 0, gid: 0 },
  ])('runs as UID $uid and GID $gid', async ({ uid, gid }) => {
    const s = sh(`ids-${uid}`, 'id -u; id -g', { uid, gid });
    expect((await runStep(rt, s)).result?.phase).toBe('Succeeded');
    expect(logOf(s)).toBe(`${uid}\n${gid}\n`);
  });

  it.each([
    { script: 'echo out; echo err >&2; exit 0', phase: 'Succeeded', exitCode: 0 },
    { script: 'echo out; echo err >&2; exit 3', phase: 'Failed', exitCode: 3 },
  ])('logs both streams and reports exit code $exitCode', async ({ script, phase, exitCode }) => {
    const s = sh(`exit-${exitCode}`, script);
    const h = await runStep(rt, s);
    expect(h.result).toMatchObject({ phase, exitCode });
    expect(logOf(s)).toContain('out\n');
    expect(logOf(s)).toContain('err\n');
  });

  it.each([
    { limits: { memoryMiB: 64 }, expected: '65536\nunlimited\n' },
    { limits: { cpuSeconds: 5 }, expected: 'unlimited\n5\n' },
    { limits: undefined, expected: 'unlimited\nunlimited\n' },
  ])('enforces limits $limits as RLIMIT_AS / RLIMIT_CPU', async ({ limits, expected }) => {
    const s = sh(
      `limits-${JSON.stringify(limits ?? {}).replace(/\W/g, '')}`,
      'ulimit -v; ulimit -t',
      limits ? { limits } : {},
    );
    expect((await runStep(rt, s)).result?.phase).toBe('Succeeded');
    expect(logOf(s)).toBe(expected);
  });

  it('runs a script template and captures its result', async () => {
    const s = step({ pod: 'script', command: ['sh'], script: 'echo "[1,2]"', captureResult: true });
    const h = await runStep(rt, s);
    expect(h.result).toMatchObject({ phase: 'Succeeded', result: '[1,2]' });
  });

  it.each<{ what: string; command: string[]; env: Record<string, string>; expected: string }>([
    {
      what: "the image's Entrypoint, Cmd, Env and WorkingDir",
      command: [],
      env: {},
      expected: 'from-image in /etc\n',
    },
    {
      what: "the step's command and env over the image's",
      command: ['sh', '-c', 'echo "$FOO in $(pwd)"'],
      env: { FOO: 'from-step' },
      expected: 'from-step in /etc\n',
    },
  ])('applies $what', async ({ command, env, expected }) => {
    const s = step({ pod: `config-${command.length}`, image: CUSTOM, command, env });
    expect((await runStep(rt, s)).result?.phase).toBe('Succeeded');
    expect(logOf(s)).toBe(expected);
  });

  it('fails a step whose image is missing, naming the image', async () => {
    const s = step({ pod: 'no-image', image: 'nothing/here:1', command: ['true'] });
    const h = await runStep(rt, s);
    expect(h.result?.phase).toBe('Error');
    expect(h.result?.message).toMatch(/image nothing\/here:1: .*not in the local images folder/);
  });

  it('Stop kills the step and everything it started', async () => {
    const marker = String(40000 + Math.floor(Math.random() * 9999));
    const s = sh('stopped', `sleep ${marker} & sleep ${marker} & echo started; wait`);
    const done = new Promise<StepHandle>((resolve) => rt.start(s, resolve));
    while (
      !fs.existsSync(path.join(tmp, 'runs', rt.logKey('org-a', 'wf-1', 'stopped'))) ||
      !logOf(s).includes('started')
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // `echo started` can run before both forked shells have exec'd sleep: give them a moment.
    for (let i = 0; i < 100 && sleepers(marker) < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sleepers(marker)).toBe(2);
    rt.get('stopped')!.kill('stopped by the test');
    const h = await done;
    expect(h.result).toMatchObject({ phase: 'Failed', message: 'stopped by the test' });
    // The pid namespace goes with bwrap; give the kernel a moment to reap the sleepers.
    for (let i = 0; i < 100 && sleepers(marker) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sleepers(marker)).toBe(0);
  });
  it('reaps what a previous runtime left behind: the step with its children and its root copy', async () => {
    const marker = String(50000 + Math.floor(Math.random() * 9999));
    const s = sh('orphan', `sleep ${marker} & sleep ${marker} & echo started; wait`);
    rt.start(s, () => undefined);
    while (
      !fs.existsSync(path.join(tmp, 'runs', rt.logKey('org-a', 'wf-1', 'orphan'))) ||
      !logOf(s).includes('started')
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // `echo started` can run before both forked shells have exec'd sleep: give them a moment.
    for (let i = 0; i < 100 && sleepers(marker) < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sleepers(marker)).toBe(2);
    const stepRoot = path.join(rt.runDir('org-a', 'wf-1'), 'orphan', 'rootfs');
    // The copy holds the image's files; the overlay's upper folder only the step's writes.
    expect(fs.existsSync(path.join(stepRoot, overlay ? 'upper' : 'bin/busybox'))).toBe(true);
    // A new runtime on the same folder, as after a crash of the platform, knows only the pid file.
    const next = new BwrapRuntime({
      root: path.join(tmp, 'runs'),
      rootfs: localRootfsProvider(image.unpacked),
      overlay,
    });
    next.reapOrphan('org-a', 'wf-1', 'orphan');
    for (let i = 0; i < 100 && sleepers(marker) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sleepers(marker)).toBe(0);
    expect(fs.existsSync(stepRoot)).toBe(false);
    await next.close();
  });
});

/** Host processes running `sleep <marker>`. */
function sleepers(marker: string): number {
  let n = 0;
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd.includes('sleep') && cmd.includes(marker)) n++;
    } catch {
      /* exited meanwhile */
    }
  }
  return n;
}
