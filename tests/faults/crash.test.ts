// Issue 19 §3 faults on the real platform process: kill -9 of `npm start`'s entry while runs are
// in their steps, and while a workflow is being saved; then started again on the same data folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FINAL,
  boot,
  executionCounts,
  killHard,
  makeWorld,
  sleep,
  until,
  workflowBody,
  type Started,
  type World,
} from './support.js';

const RUNS = 4;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-faults-'));
let s: Started;
let w: World;

beforeAll(async () => {
  s = await boot(dataDir);
  w = await makeWorld(s, dataDir, { name: 'Faults Crash', stepSeconds: 2 });
}, 300_000);
afterAll(async () => {
  if (s) await killHard(s.platform);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(w?.executions ?? path.join(os.tmpdir(), 'none'), { force: true });
});

/** Restarts on the same data folder, signed in to the world's organization. */
async function restart() {
  await killHard(s.platform);
  s = await boot(dataDir);
  await s.client.signIn(w.org.name);
}

interface RunJson {
  uuid: string;
  status: string;
  message: string;
  start: string;
  stop: string;
  sandbox_statuses: { name: string; status: string }[];
}
interface Billing {
  records: { _id: string; run: string; sandbox_name: string; status: string }[];
  total: number;
}

/** A seeded generator (mulberry32): the kill points are the same on every run of the suite. */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('kill -9 of the platform process', () => {
  it(
    `during ${RUNS} runs in their steps: every run ends once, no step executed or billed twice`,
    { timeout: 420_000 },
    async () => {
      const runs: string[] = [];
      for (let i = 0; i < RUNS; i++)
        runs.push(
          (
            await s.client.must<{ run_uuid: string }>('POST', '/session/fast', {
              uuid: w.session,
              workflow_uuid: w.workflow,
            })
          ).run_uuid,
        );
      // Killed once steps are executing (at least one line per run would be too late for some).
      await until(
        () => fs.readFileSync(w.executions, 'utf8').split('\n').filter(Boolean).length >= 2,
        120_000,
        'steps executing',
      );
      const before = executionCounts(w);
      await restart();

      const ended = new Map<string, RunJson>();
      await until(
        async () => {
          for (const uuid of runs) {
            if (ended.has(uuid)) continue;
            const r = await s.client.must<RunJson>('GET', `/run/${uuid}`);
            if (FINAL.has(r.status)) ended.set(uuid, r);
          }
          return ended.size === runs.length;
        },
        240_000,
        `every run ends\n${s.platform.output().slice(-3000)}`,
        1000,
      );

      // No run lost, none started twice: the session lists exactly the runs started.
      const listed = await s.client.must<{ uuid: string }[]>('GET', `/schedule/${w.session}/run`);
      expect(listed.map((r) => r.uuid).sort()).toEqual([...runs].sort());

      const counts = executionCounts(w);
      const billing = await s.client.must<Billing>('GET', '/billing?page_size=100');
      const billed = new Map<string, number>();
      for (const r of billing.records) {
        const key = `${r.run} ${r.sandbox_name}`;
        billed.set(key, (billed.get(key) ?? 0) + 1);
      }
      const report = JSON.stringify({
        before: [...before],
        after: [...counts],
        runs: [...ended.values()].map((r) => [r.uuid, r.status, r.message]),
        billed: [...billed],
      });
      // Each execution once at most, billed once at most, ids unique.
      expect(
        [...counts.values()].every((n) => n === 1),
        report,
      ).toBe(true);
      expect(new Set(billing.records.map((r) => r._id)).size, report).toBe(billing.records.length);
      expect(
        [...billed.values()].every((n) => n === 1),
        report,
      ).toBe(true);
      expect(billing.total).toBe(billing.records.length);

      for (const r of ended.values()) {
        // Well-formed: a final phase with its times, a clear message when it is not COMPLETED.
        expect(['COMPLETED', 'ERROR'], report).toContain(r.status);
        expect(Number.isFinite(Date.parse(r.start)), report).toBe(true);
        expect(Date.parse(r.stop)).toBeGreaterThanOrEqual(Date.parse(r.start));
        expect(r.sandbox_statuses.map((x) => x.name)).toEqual(w.steps);
        if (r.status === 'COMPLETED') {
          // Every step executed exactly once, and billed exactly once.
          for (const step of w.steps) {
            expect(counts.get(`${r.uuid} ${step}`), report).toBe(1);
          }
          expect(
            r.sandbox_statuses.every((x) => x.status === 'COMPLETED'),
            report,
          ).toBe(true);
        } else {
          expect(r.message, report).not.toBe('');
        }
      }
      // Every run whose steps ended is on the bill (records are written from the ended runs).
      const completed = [...ended.values()].filter((r) => r.status === 'COMPLETED');
      for (const r of completed)
        for (const step of w.steps) expect(billed.get(`${r.uuid} ${step}`), report).toBe(1);

      console.info(
        `kill -9 during runs: ${[...ended.values()].map((r) => r.status).join(', ')}; ` +
          `${counts.size} step executions, ${billing.records.length} billing records`,
      );
      // And the platform still runs work after the crash.
      const after = (
        await s.client.must<{ run_uuid: string }>('POST', '/session/fast', {
          uuid: w.session,
          workflow_uuid: w.workflow,
        })
      ).run_uuid;
      const done = await until(
        async () => {
          const r = await s.client.must<RunJson>('GET', `/run/${after}`);
          return FINAL.has(r.status) ? r : undefined;
        },
        120_000,
        'a run after the restart ends',
        1000,
      );
      expect(done.status).toBe('COMPLETED');
    },
  );

  it(
    'during workflow saves (seeded kill points): the graph read back is one whole version',
    {
      timeout: 420_000,
    },
    async () => {
      const random = seeded(19);
      for (let round = 0; round < 3; round++) {
        let acknowledged = -1;
        let sent = -1;
        let stop = false;
        const base = (round + 1) * 1000;
        const saver = (async () => {
          for (let k = base; !stop; k++) {
            sent = k;
            try {
              const a = await s.client.call('PUT', `/workflow/${w.workflow}`, workflowBody(w, k));
              if (a.status === 200 || a.status === 201) acknowledged = k;
            } catch {
              return; // the connection went with the process
            }
          }
        })();
        await until(() => acknowledged >= base, 60_000, 'a first save');
        await sleep(Math.floor(random() * 1500));
        await killHard(s.platform);
        stop = true;
        await saver;
        await restart();
        const graph = await s.client.must<{ nodes: { name: string; x: number; y: number }[] }>(
          'GET',
          `/workflow/${w.workflow}`,
        );
        const k = graph.nodes[0]!.y;
        // Old or new: the last acknowledged version or the one in flight when it died, never a mix.
        expect([acknowledged, sent]).toContain(k);
        expect(graph.nodes.map((n) => [n.name, n.x, n.y])).toEqual(
          w.steps.map((name, i) => [name, i * 220 + k, k]),
        );
        console.info(
          `kill -9 during saves, round ${round}: read back v${k} (acknowledged v${acknowledged}, sent v${sent})`,
        );
        // And it can be saved again.
        const again = await s.client.call('PUT', `/workflow/${w.workflow}`, workflowBody(w, base + 999));
        expect(again.status, again.text).toBeLessThan(300);
      }
    },
  );
});
