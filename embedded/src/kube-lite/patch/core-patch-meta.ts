/**
 * The strategic-merge-patch list strategies of the built-in kinds kube-lite serves, transcribed
 * from the `patchStrategy`/`patchMergeKey` tags of k8s.io/api. Lists not listed are replaced.
 */
import type { PatchMeta } from './strategic-merge-patch.js';

/** ObjectMeta's lists, shared by every kind. */
export const OBJECT_META_PATCH_META: PatchMeta = {
  'metadata.finalizers': { strategy: 'merge' },
  'metadata.ownerReferences': { strategy: 'merge', mergeKey: 'uid' },
};

const withMeta = (own: PatchMeta = {}): PatchMeta => ({ ...OBJECT_META_PATCH_META, ...own });

export const CORE_PATCH_META: Record<string, PatchMeta> = {
  Namespace: withMeta({ 'status.conditions': { strategy: 'merge', mergeKey: 'type' } }),
  ConfigMap: withMeta(),
  Secret: withMeta(),
  ResourceQuota: withMeta(),
  Event: withMeta(),
  ServiceAccount: withMeta({ secrets: { strategy: 'merge', mergeKey: 'name' } }),
  Lease: withMeta(),
};
