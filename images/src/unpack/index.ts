export { applyLayer, finishRoot, newApplyState, LayerError, type ApplyState } from './apply.js';
export { unpackChain, chainId, type LayerSource, type UnpackedRoot } from './cache.js';
export { UnsafeEntryError, entryComponents, resolveDir } from './paths.js';
