// The sandbox builder of cluster mode: builders as Pods, reached through pods/exec. See pod-builder.ts.
export { PodBuilder, type PodBuilderOptions } from './pod-builder.js';
export { podBuilderFor } from './wiring.js';
