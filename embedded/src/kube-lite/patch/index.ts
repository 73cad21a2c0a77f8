/** PATCH semantics of kube-apiserver for kube-lite: JSON, merge, strategic merge and apply patches. */
export { PatchError, ApplyConflictError, type ApplyConflict, type PatchErrorReason } from './errors.js';
export { applyJsonPatch, type JsonPatchOperation } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch, type PatchMeta, type ListPatchStrategy } from './strategic-merge-patch.js';
export { CORE_PATCH_META, OBJECT_META_PATCH_META } from './core-patch-meta.js';
export { fieldSetOf, serverSideApply, type ServerSideApplyRequest } from './server-side-apply.js';
export { updateManagedFields } from './managed-fields.js';
