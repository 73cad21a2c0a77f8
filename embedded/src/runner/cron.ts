// CronWorkflows, as Argo's cron controller runs them: each schedule (5-field cron, spec.timezone)
// creates a Workflow `<cron>-<unix seconds>` labelled workflows.argoproj.io/cron-workflow and owned
// by the CronWorkflow, unless suspended, outside `when`, or later than startingDeadlineSeconds (a
// missed run is caught up once after a restart when still within that deadline). concurrencyPolicy:
// Allow, Forbid (skip while one is active), Replace (the active ones are stopped and deleted first).
// status.active and status.lastScheduledTime are kept like Argo's.
import type { KubeConfig } from '@kubernetes/client-node';
import { Cron } from 'croner';
import type { Logger } from 'pino';
import {
  ANNOTATIONS,
  KINDS,
  Kube,
  LABELS,
  WorkQueue,
  isAlreadyExists,
  keyOf,
  startInformer,
  type Informer,
} from '@sandflow/kube';
import { isFinal, type ArgoWorkflow, type CronWorkflow } from './argo.js';

/** The latest scheduled time of any of the schedules after `after` and not after `now`. */
function latestDue(crons: Cron[], after: Date, now: Date): Date | undefined {
  let latest: Date | undefined;
  for (const c of crons) {
    let t = c.nextRun(after);
    while (t && t <= now) {
      if (!latest || t > latest) latest = t;
      t = c.nextRun(t);
    }
  }
  return latest;
}

interface Entry {
  timer?: NodeJS.Timeout;
  generation?: number;
}

export class CronController {
  private readonly kube: Kube;
  private readonly entries = new Map<string, Entry>();
  private readonly queue: WorkQueue;
  private crons?: Informer<CronWorkflow>;

  constructor(
    kc: KubeConfig,
    private readonly log: Logger,
  ) {
    this.kube = new Kube(kc);
    this.queue = new WorkQueue({ workers: 2 }, (key) => this.reconcile(key));
  }

  async start() {
    this.crons = startInformer<CronWorkflow>(this.kube, KINDS.cronWorkflow, {
      log: this.log,
      on: (type, o) => {
        if (type !== 'delete') return this.queue.add(keyOf(o));
        const e = this.entries.get(keyOf(o));
        if (e?.timer) clearTimeout(e.timer);
        this.entries.delete(keyOf(o));
      },
    });
    await this.crons.synced;
  }

  private schedules(cwf: CronWorkflow): Cron[] {
    return (cwf.spec.schedules ?? []).map(
      (s) => new Cron(s, { timezone: cwf.spec.timezone || 'UTC', paused: true }),
    );
  }

  /** Re-arms the timer for the next fire time, catching up a missed run within the deadline. */
  private async reconcile(key: string, fireAt?: Date): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const cached = this.crons?.get(name, namespace);
    if (!cached) return;
    // Status fields are updated below as they are written; the cached object stays untouched.
    const cwf = structuredClone(cached);
    const entry = this.entries.get(key) ?? {};
    this.entries.set(key, entry);
    if (entry.timer) clearTimeout(entry.timer);
    let crons: Cron[];
    try {
      crons = this.schedules(cwf);
    } catch (e) {
      this.log.warn({ err: e, cronWorkflow: key }, 'invalid schedule');
      return;
    }
    await this.refreshActive(cwf);
    const now = new Date();
    const last = cwf.status?.lastScheduledTime ? new Date(cwf.status.lastScheduledTime) : undefined;
    const deadline = cwf.spec.startingDeadlineSeconds;
    if (fireAt) {
      // The timer woke for `fireAt`; when the wall clock jumped forward (or the timer was late) past
      // later ticks as well, the schedule runs once, for the latest tick due, as Argo's cron does:
      // not once per missed tick (a catch-up after the stale tick would make a second run).
      await this.fire(cwf, latestDue(crons, fireAt, now) ?? fireAt, now);
    } else if (last && deadline !== undefined) {
      // Missed while we were down: the latest scheduled time after the last run, if recent enough.
      const missed = latestDue(crons, last, now);
      if (missed && now.getTime() - missed.getTime() <= deadline * 1000) await this.fire(cwf, missed, now);
    }
    const next = crons
      .map((c) => c.nextRun(now))
      .filter((d): d is Date => !!d)
      .sort((a, b) => a.getTime() - b.getTime())[0];
    if (next) {
      const ms = Math.min(next.getTime() - Date.now(), 2 ** 31 - 1);
      entry.timer = setTimeout(
        () => {
          entry.timer = undefined;
          void this.reconcile(key, next).catch((e) =>
            this.log.error({ err: e, cronWorkflow: key }, 'cron fire failed'),
          );
        },
        Math.max(0, ms),
      );
      entry.timer.unref?.();
    }
  }

  private async refreshActive(cwf: CronWorkflow) {
    const active = cwf.status?.active ?? [];
    if (active.length === 0) return;
    const still: typeof active = [];
    for (const ref of active) {
      let running = true; // kept when it cannot be read: pruned at a later look
      try {
        const wf = await this.kube.get<ArgoWorkflow>(KINDS.argoWorkflow, cwf.metadata!.namespace!, ref.name!);
        running = !!wf && !isFinal(wf.status?.phase);
      } catch {
        running = true;
      }
      if (running) still.push(ref);
    }
    if (still.length !== active.length) {
      await this.writeStatus(cwf, { active: still });
      (cwf.status ??= {}).active = still;
    }
  }

  /**
   * CronWorkflows have no status subresource, so status goes through the object itself, as Argo's cron
   * controller writes it. A merge patch of only these status fields needs no resourceVersion: it
   * leaves the spec (which the operator patches) alone, and no one else writes this status.
   */
  private writeStatus(cwf: CronWorkflow, status: NonNullable<CronWorkflow['status']>) {
    return this.kube.patch(KINDS.cronWorkflow, cwf.metadata.namespace!, cwf.metadata.name!, { status });
  }

  private whenAllows(cwf: CronWorkflow, now: Date): boolean {
    const when = cwf.spec.when;
    if (!when) return true;
    const last = cwf.status?.lastScheduledTime;
    const m = /\(now\(\)\s*-\s*cronworkflow\.lastScheduledTime\)\.Seconds\(\)\s*>=\s*([0-9.]+)/.exec(when);
    if (m) return !last || (now.getTime() - Date.parse(last)) / 1000 >= Number(m[1]);
    this.log.warn({ when, cronWorkflow: cwf.metadata.name }, 'unsupported when expression; running');
    return true;
  }

  private async fire(cwf: CronWorkflow, at: Date, now: Date) {
    const ns = cwf.metadata.namespace!;
    const key = `${ns}/${cwf.metadata.name}`;
    if (cwf.spec.suspend) return;
    const deadline = cwf.spec.startingDeadlineSeconds;
    if (deadline !== undefined && now.getTime() - at.getTime() > deadline * 1000) {
      this.log.info({ cronWorkflow: key, at }, 'missed its starting deadline; skipped');
      return;
    }
    if (!this.whenAllows(cwf, now)) return;
    const active = cwf.status?.active ?? [];
    const policy = cwf.spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && active.length > 0) {
      this.log.info({ cronWorkflow: key }, 'a workflow is still active; Forbid skips this run');
      return;
    }
    if (policy === 'Replace') {
      for (const ref of active) {
        await this.kube.delete(KINDS.argoWorkflow, ns, ref.name!).catch(() => undefined);
      }
    }
    const name = `${cwf.metadata.name}-${Math.floor(at.getTime() / 1000)}`;
    const body: ArgoWorkflow = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      metadata: {
        name,
        namespace: ns,
        labels: { ...(cwf.spec.workflowMetadata?.labels ?? {}), [LABELS.cronWorkflow]: cwf.metadata!.name! },
        annotations: {
          ...(cwf.spec.workflowMetadata?.annotations ?? {}),
          [ANNOTATIONS.scheduledTime]: at.toISOString(),
        },
        ownerReferences: [
          {
            apiVersion: 'argoproj.io/v1alpha1',
            kind: 'CronWorkflow',
            name: cwf.metadata.name!,
            uid: cwf.metadata.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: structuredClone(cwf.spec.workflowSpec),
    };
    // Listed as active before it exists, so that no reader sees the workflow without its cron listing it
    // (the runner reacts to a new workflow at once); a ref whose workflow never appears is pruned above.
    await this.writeStatus(cwf, {
      active: [
        ...(policy === 'Replace' ? [] : active.filter((a) => a.name !== name)),
        { apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', name, namespace: ns },
      ],
    });
    let created: ArgoWorkflow | undefined;
    try {
      created = await this.kube.create<ArgoWorkflow>(KINDS.argoWorkflow, ns, body);
    } catch (e) {
      if (!isAlreadyExists(e)) throw new Error(`creating workflow ${name} failed`, { cause: e });
    }
    const ref = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      name,
      namespace: ns,
      uid: created?.metadata.uid,
    };
    await this.writeStatus(cwf, {
      lastScheduledTime: at.toISOString(),
      active: [...(policy === 'Replace' ? [] : active.filter((a) => a.name !== name)), ref],
    });
    this.log.info({ cronWorkflow: key, workflow: name }, 'scheduled a workflow');
  }

  async stop() {
    await this.crons?.stop();
    for (const e of this.entries.values()) if (e.timer) clearTimeout(e.timer);
    await this.queue.shutdown();
  }
}
