// Issue 19 §3: PostgreSQL restarted under the platform (DATABASE_URL: the API's database and
// kube-lite's storage). A throwaway cluster from /usr/lib/postgresql/*/bin in a temp folder, stopped
// (-m immediate) and started again on the same data and port. While it is down, requests fail
// cleanly — a 5xx or 503 with the {result, status, error} envelope, no crash, no hang — and once it
// is back they succeed again without restarting the platform.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_BIN, asPostgres } from '../support/postgres.js';
import { boot, killHard, until, type Started } from './support.js';

const bin = POSTGRES_BIN;

const pgData = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-faults-pg-'));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-faults-pgdata-'));
let port = 0;
const pgStart = () =>
  asPostgres([
    `${bin}/pg_ctl`,
    '-D',
    pgData,
    '-o',
    `-p ${port} -k ${pgData} -c listen_addresses=127.0.0.1 -c fsync=off`,
    '-l',
    `${pgData}/log`,
    '-w',
    'start',
  ]);
const pgStop = () => asPostgres([`${bin}/pg_ctl`, '-D', pgData, '-m', 'immediate', '-w', 'stop']);

let s: Started | undefined;

beforeAll(async () => {
  if (!bin) return;
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', pgData]);
  port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = probe.address() as AddressInfo;
      probe.close(() => resolve(p));
    });
  });
  await asPostgres([`${bin}/initdb`, '-D', pgData, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  await pgStart();
  s = await boot(dataDir, { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres` });
}, 300_000);
afterAll(async () => {
  if (s) await killHard(s.platform);
  if (bin) await pgStop().catch(() => undefined);
  fs.rmSync(pgData, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// Skipped, saying why, only on a machine without PostgreSQL binaries.
describe.skipIf(!bin)(
  `PostgreSQL restarted under the API${bin ? '' : ' (skipped: no /usr/lib/postgresql/*/bin)'}`,
  () => {
    it('requests fail cleanly while it is down and succeed once it is back', async () => {
      const c = s!.client;
      await c.signIn();
      const before = await c.call<{ id: string }>('GET', '/me');
      expect(before.status).toBe(200);

      await pgStop();
      const down = new Map<string, number>();
      for (const [method, p, body] of [
        ['GET', '/me', undefined],
        ['GET', '/organizations', undefined],
        ['POST', '/login', { username: 'faults@example.com', password: 'wrong-password-1A!' }],
        ['POST', '/organizations', { name: 'While Down', admins: [], quota: { cpu: 0, memory: 0, disk: 0 } }],
      ] as const) {
        const started = Date.now();
        const a = await c.call(method, p, body);
        down.set(`${method} ${p}`, a.status);
        expect(Date.now() - started, `${method} ${p} answered in time`).toBeLessThan(30_000);
        // Served from the API's caches, or refused in the envelope with a message (no stack, no
        // driver detail about the connection string).
        if (a.status < 300) continue;
        expect(a.status, `${method} ${p}: ${a.text}`).toBeGreaterThanOrEqual(500);
        expect(a.body, a.text).toMatchObject({ result: null, status: a.status });
        expect(a.body!.error, a.text).toMatchObject({
          code: expect.any(String),
          message: expect.any(String),
        });
        expect(a.text).not.toContain('postgres://');
      }
      // A write needs the database: refused while it is down.
      expect(down.get('POST /organizations')).toBeGreaterThanOrEqual(500);
      expect(s!.platform.child.exitCode, 'the platform is still running').toBeNull();
      expect((await fetch(`${s!.platform.url}/healthz`)).status).toBe(200);

      await pgStart();
      const me = await until(
        async () => {
          const a = await c.call<{ id: string }>('GET', '/me');
          return a.status === 200 ? a.body!.result : undefined;
        },
        60_000,
        'GET /me after PostgreSQL is back',
        500,
      );
      expect(me.id).toBe(before.body!.result.id);
      // Writes work again, through the API's database and kube-lite's storage (an organization
      // namespace), and the one refused while down was not half-made.
      const org = await until(
        async () => {
          const a = await c.call<{ slug: string }>('POST', '/organizations', {
            name: 'After Restart',
            admins: [],
            quota: { cpu: 0, memory: 0, disk: 0 },
          });
          return a.status < 300 ? a.body!.result : undefined;
        },
        60_000,
        'POST /organizations after PostgreSQL is back',
        1000,
      );
      expect(org.slug).toBe('after-restart');
      const names = (await c.must<{ name: string }[]>('GET', '/organizations')).map((o) => o.name);
      expect(names).toContain('After Restart');
      expect(names).not.toContain('While Down');
      expect(s!.platform.child.exitCode).toBeNull();
      console.info(`PostgreSQL down: ${JSON.stringify([...down])}`);
    });
  },
);
