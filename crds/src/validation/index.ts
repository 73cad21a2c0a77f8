export * from './graph.js';
export * from './workflow.js';
