// Committing a changed root folder: the diff against the image root, one gzip tar layer, and that
// layer appended to the source image in any ImageStore.
export { diffRoots, comparePaths, type RootChange, type DiffOptions, type EntryType } from './diff.js';
export { writeLayer, layerEntries, type LayerFile, type OwnerOf } from './layer.js';
export { appendLayer, layerBlob, type AppendOptions, type AppendResult } from './append.js';
