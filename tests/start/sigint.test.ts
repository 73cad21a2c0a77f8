import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startPlatform, type Platform } from '../support/platform.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-sigint-'));
const started: Platform[] = [];
beforeAll(() => {
  // What `npm start`'s prestart does for the process (the console build is not needed here).
  execFileSync(process.execPath, ['--import', 'tsx', 'embedded/scripts/build.ts'], { cwd: repoRoot });
});
afterAll(() => {
  for (const p of started) {
    try {
      process.kill(-p.child.pid!, 'SIGKILL');
    } catch {
      // the group has already exited
    }
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function npmStart(): Promise<Platform> {
  const platform = await startPlatform({ dataDir, npmStart: true, timeoutMs: 120_000 });
  started.push(platform);
  return platform;
}

/** Ctrl-C: SIGINT to npm and the platform, then wait until the platform says it has stopped. */
async function interrupt(platform: Platform): Promise<void> {
  await platform.stop('SIGINT');
  for (let i = 0; i < 600 && !platform.output().includes('"msg":"stopped"'); i++)
    await new Promise((r) => setTimeout(r, 50));
  expect(platform.output()).toContain('"msg":"stopped"');
}

const core = () => {
  const kc = new KubeConfig();
  kc.loadFromFile(path.join(dataDir, 'kubeconfig'));
  return kc.makeApiClient(CoreV1Api);
};

const burst = { total: 600, inFlight: 16, signalAfter: 120 };

describe('npm start and Ctrl-C', () => {
  it(
    `keeps every acknowledged write when SIGINT arrives during a burst of ${burst.total} ConfigMap creates`,
    { timeout: 300_000 },
    async () => {
      const first = await npmStart();
      const api = core();
      await api.createNamespace({ body: { metadata: { name: 'burst' } } });
      const acknowledged = new Map<string, { uid: string; resourceVersion: string }>();
      let next = 0;
      let interrupted: Promise<void> | undefined;
      let refused = 0;
      const writer = async () => {
        while (next < burst.total) {
          const name = `cm-${next++}`;
          try {
            const cm = await api.createNamespacedConfigMap({
              namespace: 'burst',
              body: { metadata: { name }, data: { name } },
            });
            acknowledged.set(name, {
              uid: cm.metadata!.uid!,
              resourceVersion: cm.metadata!.resourceVersion!,
            });
            if (acknowledged.size === burst.signalAfter) interrupted = interrupt(first);
          } catch {
            refused++; // the server is going away: the write was not acknowledged
          }
        }
      };
      await Promise.all(Array.from({ length: burst.inFlight }, writer));
      expect(interrupted, 'the signal was sent mid-burst').toBeDefined();
      await interrupted;
      expect(acknowledged.size).toBeGreaterThanOrEqual(burst.signalAfter);
      expect(acknowledged.size + refused).toBe(burst.total);

      const second = await npmStart();
      try {
        const kept = await core().listNamespacedConfigMap({ namespace: 'burst' });
        const byName = new Map(kept.items.map((c) => [c.metadata!.name!, c.metadata!]));
        const lost = [...acknowledged].filter(([name, a]) => byName.get(name)?.uid !== a.uid);
        expect(lost, `acknowledged but gone after the restart\n${first.output().slice(-3000)}`).toEqual([]);
        for (const [name, a] of acknowledged)
          expect(byName.get(name)?.resourceVersion).toBe(a.resourceVersion);
      } finally {
        await interrupt(second);
      }
    },
  );
});
