// The runner's workflow controller: watches Argo Workflows, reconciles one workflow at a time per
// key (engine.operate), writes status with optimistic concurrency (a PUT of the whole workflow with
// the resourceVersion it read: Argo's CRDs have no status subresource) and wakes workflows up when a
// step exits, resources free up or a timer (deadline, backoff) is due.
//
// Latency: the controller keeps the latest state of each workflow in memory (the object the watch
// delivered, then the status it computed itself), so a step that exits is handled at once from
// memory: the next DAG task starts without reading the workflow back and without waiting for the
// previous status write to round-trip. Status writes are serialized per workflow and coalesced (a
// change made while a write is in flight goes out in the next write, with the resourceVersion the
// first one returned). Any change made by someone else (spec.shutdown, suspend, deletion, …) drops
// the in-memory copy, and so does a 409: the next reconcile reads the object again, exactly as
// before. Steps started from a state whose write then failed are found again by their pod id in the
// runtime, so nothing starts twice.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { KINDS, Kube, WorkQueue, keyOf, startInformer, statusCode } from '@sandflow/kube';
import type { ArgoWorkflow } from './argo.js';
import { operate } from './engine.js';
import type { Runtime, StepHandle } from './runtime.js';

interface Writer {
  /** A write of this key is in flight. */
  busy: boolean;
  /** The in-memory status changed after the in-flight write was sent. */
  again: boolean;
  /** resourceVersions seen from the watch while a write was in flight. */
  seen: string[];
  /** Pods whose final state the pending status records (forgotten by the runtime once written). */
  finalized: Set<string>;
  done?: Promise<void>;
}

export class WorkflowController {
  private readonly kube: Kube;
  private readonly queue: WorkQueue;
  /** resourceVersions our own status writes produced (the last few per workflow). */
  private readonly ours = new Map<string, string[]>();
  /** The latest state of each workflow as far as this runner knows (may be ahead of the server). */
  private readonly latest = new Map<string, ArgoWorkflow>();
  private readonly writers = new Map<string, Writer>();
  private readonly waiting = new Set<string>();
  private stopInformer?: () => Promise<void>;

  constructor(
    kc: KubeConfig,
    private readonly runtime: Runtime,
    private readonly log: Logger,
    concurrency = 8,
    /** Which workflows this runner executes (the platform's runner leaves agents' ones alone). */
    private readonly accepts: (wf: ArgoWorkflow) => boolean = () => true,
  ) {
    this.kube = new Kube(kc);
    this.queue = new WorkQueue({ workers: concurrency }, (key) => this.reconcile(key));
  }

  async start() {
    const informer = startInformer<ArgoWorkflow>(this.kube, KINDS.argoWorkflow, {
      log: this.log,
      on: (type, o) => {
        const k = keyOf(o);
        if (type !== 'delete' && !this.accepts(o)) return;
        if (type === 'delete') {
          this.runtime.removeWorkflow(o.metadata.namespace ?? 'default', o.metadata.name!);
          this.ours.delete(k);
          this.latest.delete(k);
          if (!this.writers.get(k)?.busy) this.writers.delete(k);
          this.waiting.delete(k);
          return;
        }
        // Our own status write comes back as an update: nothing new to do.
        if (type === 'update' && this.ours.get(k)?.includes(o.metadata.resourceVersion!)) return;
        this.observed(k, o);
        this.queue.add(k);
      },
    });
    this.stopInformer = () => informer.stop();
    await informer.synced;
  }

  /** The watch delivered a state we did not write: it becomes the latest, unless a write is in flight. */
  private observed(key: string, o: ArgoWorkflow) {
    const w = this.writers.get(key);
    if (w?.busy) {
      w.seen.push(o.metadata.resourceVersion!);
      return;
    }
    this.latest.set(key, o);
  }

  /** A step exited: its workflow needs a look; freed resources may let waiting workflows start. */
  readonly onExit = (h: StepHandle) => {
    this.soon(h.key);
    for (const k of this.waiting) this.soon(k);
  };

  private readonly kicked = new Set<string>();
  /**
   * Queues `key` once the current turn of the event loop is over: the exits (and re-looks) of one
   * turn share one reconcile, which matters for wide fan-outs where each reconcile walks every node.
   */
  private soon(key: string) {
    if (this.kicked.has(key)) return;
    this.kicked.add(key);
    setImmediate(() => {
      this.kicked.delete(key);
      this.queue.add(key);
    });
  }

  enqueue(key: string) {
    this.queue.add(key);
  }

  get depth() {
    return this.queue.depth;
  }

  private async reconcile(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    let wf = this.latest.get(key);
    if (!wf) {
      try {
        wf = await this.kube.get<ArgoWorkflow>(KINDS.argoWorkflow, namespace, name);
      } catch (e) {
        this.log.warn({ err: e, workflow: key }, 'reading the workflow failed; retrying');
        this.queue.addAfter(key, 1000);
        return;
      }
      if (!wf) {
        this.runtime.removeWorkflow(namespace, name);
        this.waiting.delete(key);
        return;
      }
      if (!this.writers.get(key)?.busy) this.latest.set(key, wf);
    }
    if (wf.metadata.deletionTimestamp) {
      this.runtime.killWorkflow(namespace, name, 'workflow deleted');
      return;
    }
    let result;
    try {
      result = operate(wf, { runtime: this.runtime, onExit: this.onExit });
    } catch (e) {
      this.log.error({ err: e, workflow: key }, 'operating the workflow failed');
      this.queue.addAfter(key, 5000);
      return;
    }
    if (result.waitingForResources) this.waiting.add(key);
    else this.waiting.delete(key);
    if (result.changed) {
      this.latest.set(key, { ...wf, status: result.status });
      let w = this.writers.get(key);
      if (!w) this.writers.set(key, (w = { busy: false, again: false, seen: [], finalized: new Set() }));
      for (const pod of result.finalizedPods) w.finalized.add(pod);
      this.write(key, w);
      // Newly started steps may already be finished, and a completed step can unblock the next.
      if (result.status.phase === 'Running') this.soon(key);
    }
    if (result.wakeAt !== undefined) this.queue.addAfter(key, Math.max(0, result.wakeAt - Date.now()));
  }

  /** Writes the latest status of `key`, or marks it for the write after the one in flight. */
  private write(key: string, w: Writer) {
    if (w.busy) {
      w.again = true;
      return;
    }
    w.busy = true;
    w.done = this.writeLoop(key, w).finally(() => {
      w.busy = false;
      w.seen = [];
      if (this.writers.get(key) === w && !w.again && w.finalized.size === 0) this.writers.delete(key);
    });
  }

  private async writeLoop(key: string, w: Writer) {
    const [namespace, name] = key.split('/') as [string, string];
    for (;;) {
      w.again = false;
      w.seen = [];
      const body = this.latest.get(key);
      if (!body) return;
      const pods = [...w.finalized];
      let written: ArgoWorkflow;
      try {
        // Argo has no status subresource: its controller updates the whole object, and so does this
        // one. The PUT carries the resourceVersion `body` was computed from, so its spec is the
        // server's own unless someone wrote since, and then it fails with 409 instead of undoing
        // their write (the operator's spec.suspend / spec.shutdown patches, its retry's status reset).
        // On 409 the computed status is dropped, not re-applied onto the newer object: it was worked
        // out from the old spec and status, and laid over a retry's reset it would undo the retry.
        // The next reconcile reads the workflow again and operates on that (what this state started
        // or finished is found again in the runtime by pod id). A merge patch of only `status` under
        // the same precondition would be as safe, but the PUT replaces status exactly, where a merge
        // patch keeps every map key the new status no longer has unless each is sent as null.
        written = await this.kube.replace<ArgoWorkflow>(KINDS.argoWorkflow, namespace, name, body);
      } catch (e) {
        const code = statusCode(e);
        this.latest.delete(key); // read it again
        w.again = false;
        if (code === 404) return;
        if (code !== 409)
          this.log.warn({ err: e, workflow: key }, 'writing the workflow status failed; retrying');
        this.queue.addAfter(key, code === 409 ? 0 : 1000);
        return;
      }
      const rv = written.metadata.resourceVersion!;
      const list = this.ours.get(key) ?? [];
      list.push(rv);
      if (list.length > 8) list.shift();
      this.ours.set(key, list);
      for (const pod of pods) {
        this.runtime.forget(pod);
        w.finalized.delete(pod);
      }
      this.log.debug(
        { workflow: key, phase: body.status?.phase, progress: body.status?.progress, resourceVersion: rv },
        'status written',
      );
      if (w.seen.some((v) => v !== rv && !list.includes(v))) {
        // Someone else changed the workflow meanwhile: read it again before going on.
        this.latest.delete(key);
        this.queue.add(key);
        return;
      }
      const cur = this.latest.get(key);
      if (!cur) return;
      if (!w.again && ['Succeeded', 'Failed', 'Error'].includes(body.status?.phase ?? '')) {
        // Finished: nothing more to do from memory; a later look (if any) reads it again.
        this.latest.delete(key);
        return;
      }
      this.latest.set(key, { ...cur, metadata: { ...written.metadata } });
      if (!w.again) return;
    }
  }

  async stop() {
    await this.stopInformer?.();
    await this.queue.shutdown();
    await Promise.all([...this.writers.values()].map((w) => w.done));
  }
}
