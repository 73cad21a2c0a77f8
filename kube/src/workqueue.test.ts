import { describe, expect, it } from 'vitest';
import { WorkQueue } from './workqueue.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('WorkQueue', () => {
  it('holds keys while paused and processes each once after start()', async () => {
    const seen: string[] = [];
    const q = new WorkQueue({ workers: 2, paused: true }, async (k) => void seen.push(k));
    for (const k of ['a', 'b', 'a', 'c']) q.add(k);
    await tick();
    expect(seen).toEqual([]);
    expect(q.depth).toBe(3);
    q.start();
    await tick();
    expect(seen.sort()).toEqual(['a', 'b', 'c']);
    await q.shutdown();
  });

  it('runs a key added while it is being processed once more afterwards, never twice at once', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue({ workers: 4 }, async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      runs++;
      if (runs === 1) await gate;
      active--;
    });
    q.add('k');
    await tick();
    q.add('k');
    q.add('k');
    release();
    for (let i = 0; i < 5; i++) await tick();
    await q.shutdown();
    expect({ runs, maxActive }).toEqual({ runs: 2, maxActive: 1 });
  });

  it.each([
    [1, 5],
    [2, 10],
    [5, 80],
  ])('backs off a key failing %i time(s) by %i ms', (failures, delay) => {
    const q = new WorkQueue({ workers: 1, paused: true }, async () => undefined);
    let last = 0;
    for (let i = 0; i < failures; i++) last = q.addRateLimited('k');
    expect(last).toBe(delay);
    expect(q.retries('k')).toBe(failures);
    q.forget('k');
    expect(q.retries('k')).toBe(0);
    void q.shutdown();
  });
});
