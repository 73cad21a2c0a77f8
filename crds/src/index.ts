// @sandflow/crds: the resource model shared by the API, the operator, the console and embedded.
export * from './generated/types.gen.js';
export * from './types.js';
export { generateTypes, parseCrd } from './codegen.js';
export type { CrdSource, CustomResourceDefinition, JSONSchemaProps } from './codegen.js';
export { CRD_DIR, crdFor, crdSchema, loadCrds, readCrdSources } from './crds.js';
export * from './validation/index.js';
