// @sandflow/operator/testing: the compiler's fixtures and random-graph generator for cross-package
// tests (never loaded by the operator itself).
export {
  SWITCH_FAIL_JOINED_WITH_SKIPPED_NODE,
  loadSamples,
  nodes,
  sandbox,
  session,
  workflow,
} from '../compiler/fixtures.js';
export { dagArb, type Graph } from '../compiler/testing/graphs.js';
