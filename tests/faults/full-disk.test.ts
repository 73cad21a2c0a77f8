// Issue 19 §3: a full disk for the data folder. The platform runs in a mount namespace of its own
// (`unshare -rm`, allowed unprivileged in a user namespace) with a size-limited tmpfs mounted on its
// data folder; the test fills that tmpfs through /proc/<pid>/root until ENOSPC. Saves must then be
// refused with a clear error in the JSON envelope (no crash, nothing half-written), reads keep
// working, and once space is freed saves work again without a restart.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/platform.js';
import { ADMIN, Client, FINAL, makeWorld, until, type World } from './support.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-faults-disk-'));
const SIZE_MB = 256;
const canMount =
  spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o size=1m tmpfs "${dataDir}"`]).status === 0;

let child: ChildProcess | undefined;
let out = '';
let url = '';

beforeAll(async () => {
  if (!canMount) return;
  child = spawn(
    'unshare',
    [
      '-rm',
      'sh',
      '-c',
      `mount -t tmpfs -o size=${SIZE_MB}m tmpfs "$0" && exec "$@"`,
      dataDir,
      process.execPath,
      '--import',
      'tsx',
      'embedded/src/main.ts',
    ],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        SANDFLOW_DATA_DIR: dataDir,
        SANDFLOW_PORT: '0',
        SANDFLOW_KUBE_PORT: '0',
        SANDFLOW_LOG_LEVEL: 'info',
        SANDFLOW_RUNTIME: 'process',
        SANDFLOW_ADMIN_EMAIL: ADMIN.email,
        SANDFLOW_ADMIN_PASSWORD: ADMIN.password,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-50_000)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-50_000)));
  url = await until(
    () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"sandflow serving"/.exec(out)?.[1],
    240_000,
    `the platform serving\n${out}`,
  );
  await until(async () => (await fetch(`${url}/readyz`)).status === 200, 120_000, 'readyz');
}, 400_000);
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(`${dataDir}-executions`, { force: true });
});

/** The data folder as the platform sees it, from outside its mount namespace. */
const inside = (p: string) => `/proc/${child!.pid}/root${path.join(dataDir, p)}`;

/** Fills the tmpfs until ENOSPC; returns the filler files' paths. */
function fill(): string[] {
  const chunk = Buffer.alloc(1 << 20, 1);
  const files: string[] = [];
  for (let i = 0; ; i++) {
    const f = inside(`filler-${i}`);
    files.push(f);
    const fd = fs.openSync(f, 'w');
    try {
      for (let j = 0; j < 64; j++) fs.writeSync(fd, chunk);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOSPC') {
        // Leave nothing: the last few KB too.
        try {
          fs.writeSync(fd, Buffer.alloc(4096, 1));
        } catch {
          /* full */
        }
        return files;
      }
      throw e;
    } finally {
      fs.closeSync(fd);
    }
  }
}

describe.skipIf(!canMount)(
  `a full disk for the data folder${canMount ? '' : ' (skipped: unshare -rm with a tmpfs mount is not allowed here)'}`,
  () => {
    it('while full: no crash, a save is refused clearly or made whole; once space is freed saves and runs work again', async () => {
      const c = new Client(url);
      const w: World = await makeWorld({ platform: { url } as never, client: c }, dataDir, {
        name: 'Before Full',
        stepSeconds: 0,
        kubeconfig: inside('kubeconfig'),
      });
      const org = w.org;
      /** Starts a run: its uuid, or the refusal (a 5xx in the envelope, checked). */
      const start = async () => {
        const a = await c.call<{ run_uuid: string }>('POST', '/session/fast', {
          uuid: w.session,
          workflow_uuid: w.workflow,
        });
        if (a.status < 300) return { uuid: a.body!.result.run_uuid, status: a.status };
        expect(a.status, a.text).toBeGreaterThanOrEqual(500);
        expect(a.body, a.text).toMatchObject({ result: null, status: a.status });
        expect(a.body!.error, a.text).toMatchObject({
          code: expect.any(String),
          message: expect.any(String),
        });
        return { uuid: undefined, status: a.status, error: a.body!.error };
      };
      const ended = (uuid: string, ms: number) => {
        let last = {};
        return until(
          async () => {
            const r = await c.must<{ status: string; message: string }>('GET', `/run/${uuid}`);
            last = r;
            return FINAL.has(r.status) ? r : undefined;
          },
          ms,
          () => `run ${uuid} ends\n${JSON.stringify(last)}\n${out.slice(-3000)}`,
          1000,
        );
      };
      const first = await start();
      expect((await ended(first.uuid!, 120_000)).status).toBe('COMPLETED');
      const fillers = fill();
      expect(fillers.length).toBeGreaterThan(0);
      // A run while full: refused with a clear error (checked by start()), or accepted (its objects
      // fit in what the databases had preallocated) — then it must end once space is back: COMPLETED,
      // or ERROR saying why (its step's files could not be written), never RUNNING for good.
      const fullRun = await start();
      console.info(`full disk: starting a run while full answered ${JSON.stringify(fullRun)}`);

      const refused: number[] = [];
      for (let i = 0; i < 3; i++) {
        const a = await c.call('POST', '/organizations', {
          name: `While Full ${i}`,
          admins: [],
          quota: { cpu: 0, memory: 0, disk: 0 },
        });
        refused.push(a.status);
        if (a.status < 300) continue; // a write small enough to fit in what was left
        expect(a.status, a.text).toBeGreaterThanOrEqual(500);
        expect(a.body, a.text).toMatchObject({ result: null, status: a.status });
        expect(a.body!.error, a.text).toMatchObject({
          code: expect.any(String),
          message: expect.any(String),
        });
      }
      expect(child!.exitCode, `the platform is still running\n${out.slice(-3000)}`).toBeNull();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // Reads still work, and the organization made before is whole.
      const during = await c.must<{ id: string; name: string }[]>('GET', '/organizations');
      expect(during.find((o) => o.id === org.id)?.name).toBe('Before Full');

      for (const f of fillers) fs.rmSync(f, { force: true });
      const after = await until(
        async () => {
          const a = await c.call<{ id: string }>('POST', '/organizations', {
            name: 'After Full',
            admins: [],
            quota: { cpu: 0, memory: 0, disk: 0 },
          });
          return a.status < 300 ? a.body!.result : undefined;
        },
        60_000,
        `a save once space is freed\n${out.slice(-3000)}`,
        1000,
      );
      const names = (await c.must<{ id: string; name: string }[]>('GET', '/organizations')).map(
        (o) => o.name,
      );
      expect(names).toEqual(expect.arrayContaining(['Before Full', 'After Full']));
      // A save refused while full left nothing behind.
      refused.forEach((status, i) => {
        if (status >= 500) expect(names).not.toContain(`While Full ${i}`);
      });
      expect(after.id).toBeTruthy();
      if (fullRun.uuid) {
        const r = await ended(fullRun.uuid, 180_000);
        console.info(`full disk: the run started while full ended ${r.status} ${r.message}`);
        expect(['COMPLETED', 'ERROR'], JSON.stringify(r)).toContain(r.status);
        if (r.status === 'ERROR') expect(r.message, JSON.stringify(r)).toBeTruthy();
      }
      const next = await start();
      expect(next.uuid, JSON.stringify(next)).toBeDefined();
      expect((await ended(next.uuid!, 120_000)).status).toBe('COMPLETED');
      expect(child!.exitCode).toBeNull();
      console.info(`full disk: answers while full ${JSON.stringify(refused)}`);
    });
  },
);
