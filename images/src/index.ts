// @sandflow/images: container images without a container engine, for the local runner and the API.
// Image store: the OCI distribution client and the OCI image layout folder.
export * from './errors.js';
export * from './media-types.js';
export * from './reference.js';
export * from './credentials.js';
export { parseChallenge, RegistryAuth, type Challenge } from './auth.js';
export { DigestVerifier, isDigest, sha256Digest } from './digest.js';
export * from './store.js';
export { RegistryStore, type RegistryStoreOptions } from './registry/store.js';
export { LayoutStore, REF_NAME, defaultLayoutDir } from './layout/store.js';
export * from './copy.js';
// Unpacking layers into root filesystems cached per layer chain.
export * from './unpack/index.js';
export * from './rootfs.js';
export { storeRootfsProvider, type StoreRootfsOptions } from './rootfs-store.js';
export * from './rootfs-busybox.js';
export * from './builder.js';
export * from './builder-errors.js';
// Committing a builder's changes as one layer appended to its source image.
export * from './commit/index.js';
