// Convenient names for pieces of the generated CRD types.
import type { RunStatus, SandboxSpec, SessionSpec, WorkflowSpec } from './generated/types.gen.js';

type Item<T> = T extends Array<infer U> ? U : never;

export type WorkflowNode = Item<NonNullable<WorkflowSpec['nodes']>>;
export type WorkflowSwitch = Item<NonNullable<WorkflowSpec['switches']>>;
export type WorkflowEdge = Item<NonNullable<WorkflowSpec['edges']>>;
export type EdgeType = NonNullable<WorkflowEdge['type']>;
export type Variable = Item<NonNullable<SandboxSpec['variables']>>;
export type SandboxConstraints = NonNullable<SandboxSpec['constraints']>;
export type SessionSchedule = Item<NonNullable<SessionSpec['schedules']>>;
export type PeriodicLabel = NonNullable<SessionSchedule['periodicLabel']>;
export type SandboxPermissions = NonNullable<SandboxSpec['permissions']>;
export type RunPhase = NonNullable<RunStatus['phase']>;
export type SandboxRunStatus = Item<NonNullable<RunStatus['sandboxStatuses']>>;
export type Condition = Item<NonNullable<NonNullable<RunStatus['conditions']>>>;

/** Id of the diagram's starting point; start edges leave from it. */
export const START_NODE_ID = 'start';

/** Spec defaults (spec 1 §9, spec 2 §9); the CRDs carry the same defaults. */
export const DEFAULTS = {
  version: '1.0.0',
  cpu: 500,
  memory: 512,
  disk: 102, // 0.1 GB in MB (×1024), as the console sends it
  architecture: 'amd64',
  attempts: 1,
  instanceNumber: 1,
} as const;

/**
 * A session's per-node setting (its variables or resources): keyed by the node's name, else by the
 * node's sandbox. The compiler applies them so; the API reads them back the same way.
 */
export function sessionOverrideOf<T>(
  byNode: Record<string, T> | undefined,
  node: { name: string; sandbox?: string | undefined },
): T | undefined {
  return byNode?.[node.name] ?? (node.sandbox ? byNode?.[node.sandbox] : undefined);
}
