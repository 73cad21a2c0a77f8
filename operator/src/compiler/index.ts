export * from './compile.js';
export * from './schedule.js';
export * from './argo-schema.js';
