// The Pod status the kubelet writes (phase, conditions, container statuses, IPs, startTime), and
// the writer that puts it through the status subresource: one write at a time per Pod, always the
// latest state, never onto a Pod that was deleted (or replaced by one of the same name) meanwhile.
import type { Logger } from 'pino';
import type { ResourceInfo } from '../registry.js';
import { resourceKey } from '../registry.js';
import type { RestStorage } from '../rest-storage.js';
import type { ObjectStore } from '../store.js';
import type { KubeObject } from '../types.js';
import { nowIso, type ContainerStatus } from './container-status.js';
import type { PodRunner } from './pod-runner.js';

interface Condition {
  type: string;
  status: 'True' | 'False';
  lastProbeTime: null;
  lastTransitionTime: string;
  reason?: string;
}

export const HOST_IP = '127.0.0.1';

/** Conditions keep their lastTransitionTime while their status does not move. */
function conditions(previous: unknown, wanted: [string, boolean][]): Condition[] {
  const before = Array.isArray(previous) ? (previous as Condition[]) : [];
  return wanted.map(([type, ok]) => {
    const status = ok ? 'True' : 'False';
    const old = before.find((c) => c.type === type);
    return {
      type,
      status,
      lastProbeTime: null,
      lastTransitionTime: old?.status === status ? old.lastTransitionTime : nowIso(),
    };
  });
}

export function podStatus(runner: PodRunner, previous: Record<string, unknown> | undefined) {
  const ready = runner.phase === 'Running' && runner.statuses.every((s) => s.ready);
  return {
    phase: runner.phase,
    ...(runner.reason ? { reason: runner.reason } : {}),
    ...(runner.message ? { message: runner.message } : {}),
    conditions: conditions(previous?.conditions, [
      ['PodReadyToStartContainers', true],
      ['Initialized', runner.initialized],
      ['Ready', ready],
      ['ContainersReady', ready],
      ['PodScheduled', true],
    ]),
    hostIP: HOST_IP,
    hostIPs: [{ ip: HOST_IP }],
    podIP: HOST_IP,
    podIPs: [{ ip: HOST_IP }],
    startTime: runner.startTime,
    ...(runner.initStatuses.length ? { initContainerStatuses: structuredClone(runner.initStatuses) } : {}),
    containerStatuses: structuredClone(runner.statuses),
    qosClass: 'BestEffort',
  };
}

/** A Pod whose processes a previous kube-lite ran: Failed (NodeLost), its running containers ended. */
export function lostStatus(previous: Record<string, unknown> | undefined): Record<string, unknown> {
  const end = (list: unknown) =>
    Array.isArray(list)
      ? (list as ContainerStatus[]).map((c) =>
          'running' in c.state
            ? {
                ...c,
                ready: false,
                started: false,
                state: {
                  terminated: {
                    exitCode: 137,
                    reason: 'NodeLost',
                    startedAt: c.state.running.startedAt,
                    finishedAt: nowIso(),
                  },
                },
              }
            : c,
        )
      : list;
  const readiness = new Set(['Ready', 'ContainersReady']);
  return {
    ...previous,
    phase: 'Failed',
    reason: 'NodeLost',
    message: 'kube-lite restarted: the processes of this pod were lost',
    conditions: conditions(
      previous?.conditions,
      ((previous?.conditions ?? []) as Condition[]).map((c) => [
        c.type,
        readiness.has(c.type) ? false : c.status === 'True',
      ]),
    ),
    ...(previous?.containerStatuses ? { containerStatuses: end(previous.containerStatuses) } : {}),
    ...(previous?.initContainerStatuses
      ? { initContainerStatuses: end(previous.initContainerStatuses) }
      : {}),
  };
}

export class StatusWriter {
  private queued = new Map<
    string,
    (previous: Record<string, unknown> | undefined) => Record<string, unknown>
  >();
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly r: ResourceInfo,
    private readonly store: ObjectStore,
    private readonly storage: RestStorage,
    private readonly log: Logger,
  ) {}

  /** Writes `status(previous)` onto the Pod with this uid, soon; later calls for it win. */
  write(pod: KubeObject, status: (previous: Record<string, unknown> | undefined) => Record<string, unknown>) {
    const uid = pod.metadata.uid!;
    const pending = this.queued.has(uid);
    this.queued.set(uid, status);
    if (pending) return;
    this.chain = this.chain.then(() => this.flush(pod.metadata.namespace!, pod.metadata.name!, uid));
  }

  private async flush(namespace: string, name: string, uid: string): Promise<void> {
    const make = this.queued.get(uid);
    this.queued.delete(uid);
    if (!make || this.closed) return;
    const live = this.store.get(resourceKey(this.r), namespace, name);
    if (!live || live.metadata.uid !== uid || live.metadata.deletionTimestamp) return;
    try {
      await this.storage.update(
        this.r,
        'v1',
        namespace,
        name,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace },
          status: make(live.status as Record<string, unknown> | undefined),
        },
        { manager: 'kubelet', fieldValidation: 'Ignore', dryRun: false, warnings: [] },
        'status',
      );
    } catch (e) {
      this.log.warn({ err: e, namespace, name }, 'kubelet: writing the pod status failed');
    }
  }

  /** Waits for the writes already asked for; none after. */
  async close(): Promise<void> {
    await this.chain;
    this.closed = true;
  }
}
