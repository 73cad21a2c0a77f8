/** CRD structural-schema handling for kube-lite: pruning, defaulting and validation. */
export { applyDefaults } from './defaults.js';
export { prune, unknownFieldMessage } from './prune.js';
export { validate } from './validate.js';
export { validateStructural } from './structural.js';
export { checkSchemaRules } from './cel/compile.js';
export { schemaHasRules } from './cel/compile.js';
export { validateRules } from './cel/validate.js';
