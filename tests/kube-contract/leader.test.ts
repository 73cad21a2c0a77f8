// The operator's leader election on this API server (kube-lite, or hack/envtest's real
// kube-apiserver): a Lease's acquireTime/renewTime are MicroTime, and a real server refuses the
// milliseconds a plain Date sends — which kube-lite alone never showed.
import { CoordinationV1Api } from '@kubernetes/client-node';
import { Kube } from '@sandflow/kube';
import { LeaderElector } from '@sandflow/operator';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, freshNamespace, kubeConfig, uniqueName } from '../support/kube.js';

const kc = kubeConfig();
let namespace: string;

beforeAll(async () => {
  namespace = await freshNamespace(kc, 'leader');
});

function elector(name: string, identity: string, log: string[]) {
  return new LeaderElector(
    new Kube(kc),
    { namespace, name, identity, leaseDurationSeconds: 3, renewMs: 200, retryMs: 100 },
    pino({ level: 'silent' }),
    {
      onStarted: () => void log.push(`start ${identity}`),
      onStopped: () => void log.push(`stop ${identity}`),
    },
  );
}

describe('leader election through a Lease', () => {
  it(
    'takes the Lease, renews it, releases it, and a second candidate takes over',
    { timeout: 30_000 },
    async () => {
      const name = uniqueName('lease');
      const log: string[] = [];
      const a = elector(name, 'a', log);
      a.start();
      await eventually(() => expect(a.isLeader).toBe(true));
      const lease = await kc.makeApiClient(CoordinationV1Api).readNamespacedLease({ name, namespace });
      expect(lease.spec?.holderIdentity).toBe('a');
      const firstRenew = new Date(lease.spec!.renewTime!).getTime();
      // Renewals (a replace with the read-back spec) go through as well.
      await eventually(async () => {
        const again = await kc.makeApiClient(CoordinationV1Api).readNamespacedLease({ name, namespace });
        expect(new Date(again.spec!.renewTime!).getTime()).toBeGreaterThan(firstRenew);
      });
      expect(a.isLeader).toBe(true);

      const b = elector(name, 'b', log);
      b.start();
      await a.stop();
      await eventually(() => expect(b.isLeader).toBe(true));
      await b.stop();
      expect(log).toEqual(['start a', 'stop a', 'start b', 'stop b']);
    },
  );
});
