// The sandbox builder of embedded mode: containers under bwrap with PTY shells, commits pushed to a
// registry or the local image layout. See builder.ts.
export { BwrapBuilder, createBuilder, BWRAP_MISSING, type BwrapBuilderOptions } from './builder.js';
export { reapBuilders, buildersDir } from './reap.js';
