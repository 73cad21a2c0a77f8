// The runner's workflow controller: watches Argo Workflows, reconciles one workflow at a time per
// key (engine.operate), writes status with optimistic concurrency (PUT /status with the
// resourceVersion it read) and wakes workflows up when a step exits, resources free up or a timer
// (deadline, backoff) is due.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ArgoWorkflow } from './argo.js';
import { operate } from './engine.js';
import { ArgoClient, startInformer, statusCode } from './kube.js';
import { KeyQueue } from './queue.js';
import type { Runtime, StepHandle } from './runtime.js';

export class WorkflowController {
  private readonly client: ArgoClient;
  private readonly queue: KeyQueue;
  private readonly lastWritten = new Map<string, string>();
  private readonly waiting = new Set<string>();
  private stopInformer?: () => Promise<void>;

  constructor(
    kc: KubeConfig,
    private readonly runtime: Runtime,
    private readonly log: Logger,
    concurrency = 8,
  ) {
    this.client = new ArgoClient(kc);
    this.queue = new KeyQueue(concurrency, (key) => this.reconcile(key));
  }

  async start(kc: KubeConfig) {
    const key = (o: ArgoWorkflow) => `${o.metadata.namespace}/${o.metadata.name}`;
    const { ready, stop } = startInformer<ArgoWorkflow>(
      kc,
      '/apis/argoproj.io/v1alpha1/workflows',
      () => this.client.list<ArgoWorkflow>('workflows') as never,
      this.log,
      {
        add: (o) => this.queue.add(key(o)),
        update: (o) => {
          // Our own status write comes back as an update: nothing new to do.
          if (this.lastWritten.get(key(o)) === o.metadata.resourceVersion) return;
          this.queue.add(key(o));
        },
        delete: (o) => {
          this.runtime.removeWorkflow(o.metadata.namespace ?? 'default', o.metadata.name!);
          this.lastWritten.delete(key(o));
          this.waiting.delete(key(o));
        },
      },
    );
    this.stopInformer = stop;
    await ready;
  }

  /** A step exited: its workflow needs a look; freed resources may let waiting workflows start. */
  readonly onExit = (h: StepHandle) => {
    this.queue.add(h.key);
    for (const k of this.waiting) this.queue.add(k);
  };

  enqueue(key: string) {
    this.queue.add(key);
  }

  get depth() {
    return this.queue.depth;
  }

  private async reconcile(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    let wf: ArgoWorkflow;
    try {
      wf = await this.client.get<ArgoWorkflow>('workflows', namespace, name);
    } catch (e) {
      if (statusCode(e) === 404) {
        this.runtime.removeWorkflow(namespace, name);
        this.waiting.delete(key);
        return;
      }
      this.log.warn({ err: e, workflow: key }, 'reading the workflow failed; retrying');
      this.queue.addAfter(key, 1000);
      return;
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
      try {
        const written = await this.client.replaceStatus<ArgoWorkflow>('workflows', namespace, name, {
          ...wf,
          status: result.status,
        });
        this.lastWritten.set(key, written.metadata.resourceVersion!);
        for (const pod of result.finalizedPods) this.runtime.forget(pod);
        this.log.debug(
          {
            workflow: key,
            phase: result.status.phase,
            progress: result.status.progress,
            resourceVersion: written.metadata.resourceVersion,
          },
          'status written',
        );
      } catch (e) {
        const code = statusCode(e);
        if (code === 404) return;
        if (code !== 409)
          this.log.warn({ err: e, workflow: key }, 'writing the workflow status failed; retrying');
        this.queue.addAfter(key, code === 409 ? 0 : 1000);
        return;
      }
      // Newly started steps may already be finished, and a completed step can unblock the next.
      const phase = result.status.phase;
      if (phase === 'Running') this.queue.add(key);
    }
    if (result.wakeAt !== undefined) this.queue.addAfter(key, Math.max(0, result.wakeAt - Date.now()));
  }

  async stop() {
    await this.stopInformer?.();
    await this.queue.close();
  }
}
