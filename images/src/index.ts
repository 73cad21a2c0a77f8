// @sandflow/images: container images without a container engine, for the local runner and the API.
// Unpacking layers into root filesystems cached per layer chain.
export * from './unpack/index.js';
