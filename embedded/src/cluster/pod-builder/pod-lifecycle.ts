// A builder Pod's life through the API server: created (a refusal says why), waited for until its
// builder container runs (bounded; why it never will, otherwise), deleted and waited for until it
// is gone. The Pod itself is pod-spec.ts's; which builders exist is builder-pod-watch.ts's.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { BuilderError } from '@sandflow/images';
import { isNotFound } from '@sandflow/kube';
import { messageOf } from './error-message.js';
import { REGISTRY_SECRET, podProgress } from './pod-spec.js';

export async function createBuilderPod(
  core: CoreV1Api,
  id: string,
  namespace: string,
  body: V1Pod,
): Promise<V1Pod> {
  try {
    return await core.createNamespacedPod({ namespace, body });
  } catch (error) {
    throw new BuilderError(
      'UNAVAILABLE',
      `builder ${id}: the cluster refused its Pod in namespace ${namespace}: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

/** Whether the organization's registry Secret is in its namespace (a Pod naming a missing one still runs). */
export async function hasPullSecret(core: CoreV1Api, namespace: string): Promise<boolean> {
  try {
    await core.readNamespacedSecret({ name: REGISTRY_SECRET, namespace });
    return true;
  } catch (error) {
    return !isNotFound(error); // unknown (e.g. not allowed to read it): named, the kubelet tolerates absence
  }
}

/** Waits (bounded) until the builder container runs; why it never will, otherwise. */
export async function untilRunning(
  core: CoreV1Api,
  id: string,
  created: V1Pod,
  image: string,
  timeoutMs: number,
): Promise<V1Pod> {
  const deadline = Date.now() + timeoutMs;
  const { namespace, name } = created.metadata as { namespace: string; name: string };
  let pod = created;
  for (;;) {
    const progress = podProgress(pod);
    if (progress.state === 'running') return pod;
    if (progress.state === 'failed') {
      const pinned = created.spec?.containers[0]?.image;
      const named = progress.image === pinned ? `${image} (${pinned})` : progress.image;
      throw new BuilderError(
        'UNAVAILABLE',
        progress.image
          ? `builder ${id}: the cluster could not run the image ${named}: ${progress.why}`
          : `builder ${id} (${image}) did not start: ${progress.why}`,
      );
    }
    if (Date.now() > deadline)
      throw new BuilderError(
        'UNAVAILABLE',
        `builder ${id} (${image}) was not running after ${Math.round(timeoutMs / 1000)} s: ${progress.why}`,
      );
    await sleep(300);
    try {
      pod = await core.readNamespacedPod({ name, namespace });
    } catch (error) {
      throw new Error(`builder ${id}: reading its Pod ${namespace}/${name} failed: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }
}

/** Deletes the Pod; one already gone is fine. */
export async function deleteBuilderPod(core: CoreV1Api, pod: V1Pod, graceSeconds: number): Promise<void> {
  try {
    await core.deleteNamespacedPod({
      name: pod.metadata!.name!,
      namespace: pod.metadata!.namespace!,
      gracePeriodSeconds: graceSeconds,
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Deletes the Pod of builder `id` and waits (bounded) until it is gone. */
export async function removeBuilderPod(
  core: CoreV1Api,
  id: string,
  pod: V1Pod,
  graceSeconds: number,
): Promise<void> {
  const { namespace, name } = pod.metadata as { namespace: string; name: string };
  try {
    await deleteBuilderPod(core, pod, graceSeconds);
  } catch (error) {
    throw new Error(`builder ${id}: deleting its Pod ${namespace}/${name} failed: ${messageOf(error)}`, {
      cause: error,
    });
  }
  // Gone when this returns: its processes ended and its name is free.
  const deadline = Date.now() + (graceSeconds + 30) * 1000;
  for (;;) {
    try {
      const now = await core.readNamespacedPod({ name, namespace });
      if (now.metadata?.uid !== pod.metadata?.uid) break;
    } catch (error) {
      if (isNotFound(error)) break;
      throw new Error(`builder ${id}: reading its Pod ${namespace}/${name} failed: ${messageOf(error)}`, {
        cause: error,
      });
    }
    if (Date.now() > deadline)
      throw new Error(`builder ${id}: its Pod ${namespace}/${name} was still there after deletion`);
    await sleep(200);
  }
}
