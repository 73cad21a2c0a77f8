// The operator's leader election through a Lease, on kube-lite.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startKubeLite, type KubeLite } from '@sandflow/embedded/testing';
import { Kube } from '@sandflow/kube';
import { LeaderElector } from '@sandflow/operator';

let kubeLite: KubeLite;
let kc: KubeConfig;
let dir: string;
let db: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-leader-'));
  db = await createTestDatabase();
  kubeLite = await startKubeLite({ db, dataDir: dir });
  kc = new KubeConfig();
  kc.loadFromFile(kubeLite.kubeconfigPath!);
}, 60_000);

afterAll(async () => {
  await kubeLite.close();
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

const until = async (check: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};

function replica(identity: string, log: string[]) {
  return new LeaderElector(
    new Kube(kc),
    { namespace: 'default', name: 'contest', identity, leaseDurationSeconds: 2, renewMs: 200, retryMs: 100 },
    pino({ level: 'silent' }),
    {
      onStarted: () => void log.push(`start ${identity}`),
      onStopped: () => void log.push(`stop ${identity}`),
    },
  );
}

describe('leader election between two operator replicas', () => {
  it('lets exactly one lead, and hands over when the leader leaves', { timeout: 30_000 }, async () => {
    const log: string[] = [];
    const a = replica('a', log);
    const b = replica('b', log);
    a.start();
    b.start();
    await until(() => a.isLeader || b.isLeader);
    // Several renew periods later there is still exactly one leader.
    await new Promise((r) => setTimeout(r, 1_000));
    expect([a.isLeader, b.isLeader].filter(Boolean)).toHaveLength(1);
    const [leader, follower] = a.isLeader ? [a, b] : [b, a];
    await leader.stop();
    await until(() => follower.isLeader, 5_000);
    expect(leader.isLeader).toBe(false);
    await follower.stop();
    const starts = log.filter((l) => l.startsWith('start'));
    expect(starts).toHaveLength(2);
    expect(new Set(starts).size).toBe(2);
  });

  it(
    'takes over an expired lease whose holder vanished without releasing it',
    { timeout: 30_000 },
    async () => {
      const log: string[] = [];
      const gone = replica('crashed', log);
      gone.start();
      await until(() => gone.isLeader);
      await gone.stop(false); // like a killed process: the lease is not released
      const heir = replica('heir', log);
      const started = Date.now();
      heir.start();
      await until(() => heir.isLeader, 10_000);
      // It had to wait for the 2 s lease to expire.
      expect(Date.now() - started).toBeGreaterThan(1_000);
      await heir.stop();
    },
  );

  it(
    'stopped while acquiring: controllers that just started are stopped again',
    { timeout: 30_000 },
    async () => {
      const log: string[] = [];
      const quick = new LeaderElector(
        new Kube(kc),
        { namespace: 'default', name: 'racing', identity: 'quick', leaseDurationSeconds: 2 },
        pino({ level: 'silent' }),
        { onStarted: () => void log.push('start'), onStopped: () => void log.push('stop') },
      );
      quick.start();
      await quick.stop(); // the first acquire is still in flight here
      expect(quick.isLeader).toBe(false);
      expect(log.filter((l) => l === 'start').length).toBe(log.filter((l) => l === 'stop').length);
    },
  );
});
