/** Helpers over decoded JSON shared by the patch implementations. */
export { deepCopy, deepEqual, isObject } from '../schema/json-value.js';
export type { JsonObject } from '../schema/json-value.js';
