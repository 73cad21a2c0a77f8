import type { ClusterManager } from '@sandflow/crds';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Context } from '../context.js';
import { ensurePlatformCluster, reconcileClusterManager } from './clustermanager.js';

/** A Context whose Kubernetes API is one in-memory ClusterManager slot. */
function fakeContext(
  existing: ClusterManager | undefined,
  platformResources?: ClusterManager['spec']['resources'],
) {
  const calls: string[] = [];
  let stored = existing;
  const kube = {
    async get() {
      return stored;
    },
    async create(_kind: unknown, _ns: unknown, body: ClusterManager) {
      calls.push('create');
      stored = body;
      return body;
    },
    async patch(_kind: unknown, _ns: unknown, _name: string, body: { spec: ClusterManager['spec'] }) {
      calls.push('patch');
      stored = { ...stored!, spec: { ...stored!.spec, ...body.spec } };
      return stored;
    },
  };
  const ctx = {
    kube,
    log: pino({ level: 'silent' }),
    options: {
      platformClusterName: 'platform',
      heartbeatMs: 30_000,
      queuedRetryMs: 10_000,
      compiler: {},
      ...(platformResources ? { platformResources } : {}),
    },
  } as unknown as Context;
  return { ctx, calls, stored: () => stored };
}

const platform = (resources: ClusterManager['spec']['resources']): ClusterManager => ({
  apiVersion: 'sandflow.io/v1alpha1',
  kind: 'ClusterManager',
  metadata: { name: 'platform' },
  spec: { platformOwned: true, resources },
});

describe('ensurePlatformCluster', () => {
  it.each([
    ['creates it with the given resources', undefined, { cpu: 4000, memory: 8192, disk: 50_000 }, ['create']],
    [
      'updates the resources of an existing one when they changed',
      platform({ cpu: 2000, memory: 8192, disk: 102_400 }),
      { cpu: 4000, memory: 8192, disk: 50_000 },
      ['patch'],
    ],
    [
      'leaves an existing one with the same resources alone',
      platform({ cpu: 4000, memory: 8192, disk: 50_000 }),
      { cpu: 4000, memory: 8192, disk: 50_000 },
      [],
    ],
  ])('%s', async (_case, existing, resources, expected) => {
    const { ctx, calls, stored } = fakeContext(existing, resources);
    await ensurePlatformCluster(ctx);
    expect(calls).toEqual(expected);
    expect(stored()!.spec.resources).toEqual(resources);
  });

  it('keeps what an existing one announces when no resources are given', async () => {
    const { ctx, calls, stored } = fakeContext(platform({ cpu: 2000, memory: 1024, disk: 1024 }));
    await ensurePlatformCluster(ctx);
    expect(calls).toEqual([]);
    expect(stored()!.spec.resources).toEqual({ cpu: 2000, memory: 1024, disk: 1024 });
  });
});

describe('the platform heartbeat', () => {
  /** The status a beat `ageMs` ago left (undefined: none yet). */
  const beaten = (ageMs: number | undefined): ClusterManager['status'] =>
    ageMs === undefined
      ? undefined
      : {
          lastSeen: new Date(Date.now() - ageMs).toISOString(),
          alive: true,
          connection: 'connected',
          addedTime: '2026-01-01T00:00:00Z',
          observedGeneration: 1,
        };

  it.each([
    ['no beat yet', undefined, 1],
    ['a beat just written (its own watch event)', 0, 0],
    ['a beat half a heartbeat old', 15_000, 1],
  ])('%s: %s status write(s)', async (_case, ageMs, writes) => {
    const status = beaten(ageMs);
    const cm: ClusterManager = {
      ...platform({ cpu: 2000, memory: 1024, disk: 1024 }),
      metadata: { name: 'platform', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' },
      ...(status ? { status } : {}),
    };
    const patches: unknown[] = [];
    const ctx = {
      kube: {
        async patchStatus(_kind: unknown, _ns: unknown, _name: string, next: unknown) {
          patches.push(next);
        },
      },
      log: pino({ level: 'silent' }),
      options: { platformClusterName: 'platform', heartbeatMs: 30_000 },
      caches: { clusterManagers: { get: () => cm } },
    } as unknown as Context;
    expect(await reconcileClusterManager(ctx, 'platform')).toEqual({ requeueAfterMs: 30_000 });
    expect(patches).toHaveLength(writes);
  });
});
