// Leader election through a coordination.k8s.io/v1 Lease: the holder renews it every renewMs; a
// candidate takes it over only when renewTime + leaseDurationSeconds has passed, with optimistic
// concurrency (resourceVersion) so two replicas never both win. Leaving releases the lease so a
// successor starts at once.
import { V1MicroTime, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { statusCode, type Kube } from '@sandflow/kube';

export interface LeaderOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  renewMs?: number;
  retryMs?: number;
}

export class LeaderElector {
  private timer?: NodeJS.Timeout;
  /** The acquire/renew in flight: stop() waits for it, so a win that lands during stop is undone. */
  private inflight: Promise<void> | undefined;
  private leading = false;
  private stopped = false;
  private readonly duration: number;

  constructor(
    private readonly kube: Kube,
    private readonly opts: LeaderOptions,
    private readonly log: Logger,
    private readonly callbacks: {
      onStarted: () => Promise<void> | void;
      onStopped: () => Promise<void> | void;
    },
  ) {
    this.duration = opts.leaseDurationSeconds ?? 15;
  }

  get isLeader() {
    return this.leading;
  }

  start() {
    this.inflight = this.tick();
  }

  private schedule() {
    if (this.stopped) return;
    const ms = this.leading ? (this.opts.renewMs ?? (this.duration * 1000) / 3) : (this.opts.retryMs ?? 1000);
    this.timer = setTimeout(() => {
      this.inflight = this.tick();
    }, ms);
    this.timer.unref?.();
  }

  private async tick() {
    if (this.stopped) return;
    let won = false;
    try {
      won = await this.tryAcquireOrRenew();
    } catch (e) {
      this.log.warn({ err: e }, 'lease update failed');
      won = false;
    }
    if (won && !this.leading) {
      this.leading = true;
      this.log.info({ lease: this.opts.name, identity: this.opts.identity }, 'became leader');
      try {
        await this.callbacks.onStarted();
      } catch (e) {
        this.log.error({ err: e }, 'starting controllers failed');
      }
    } else if (!won && this.leading) {
      this.leading = false;
      this.log.warn({ lease: this.opts.name }, 'lost leadership');
      await this.callbacks.onStopped();
    }
    this.schedule();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.opts;
    // A Lease's times are MicroTime: a real API server refuses milliseconds (".498Z"), kube-lite took both.
    const now = new V1MicroTime();
    let lease: V1Lease | undefined;
    try {
      lease = await this.kube.coordination.readNamespacedLease({ name, namespace });
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    }
    if (!lease) {
      try {
        await this.kube.coordination.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: this.duration,
              acquireTime: now,
              renewTime: now,
              leaseTransitions: 0,
            },
          },
        });
        return true;
      } catch (e) {
        if (statusCode(e) === 409) return false;
        throw e;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity;
    const renew = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
    const expired = !holder || renew + (spec.leaseDurationSeconds ?? this.duration) * 1000 < now.getTime();
    if (holder !== identity && !expired) return false;
    const body: V1Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds: this.duration,
        renewTime: now,
        ...(holder !== identity
          ? { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }
          : {}),
      },
    };
    try {
      await this.kube.coordination.replaceNamespacedLease({ name, namespace, body });
      return true;
    } catch (e) {
      if (statusCode(e) === 409) return false;
      throw e;
    }
  }

  async stop(release = true) {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inflight;
    if (this.leading) {
      this.leading = false;
      await this.callbacks.onStopped();
      if (release) {
        try {
          const lease = await this.kube.coordination.readNamespacedLease({
            name: this.opts.name,
            namespace: this.opts.namespace,
          });
          if (lease.spec?.holderIdentity === this.opts.identity) {
            await this.kube.coordination.replaceNamespacedLease({
              name: this.opts.name,
              namespace: this.opts.namespace,
              body: { ...lease, spec: { ...lease.spec, holderIdentity: '', renewTime: new V1MicroTime(0) } },
            });
          }
        } catch (e) {
          this.log.warn({ err: e }, 'releasing the lease failed');
        }
      }
    }
  }
}
