// The variables each sandbox of a run ran with (the run dashboard's Variables tab): read from the
// environment the operator compiled into the run's Argo Workflow (operator/src/compiler/compile.ts
// containerTemplate: sandbox defaults, then the workflow node's variables, then the session's
// override, the last of a name winning), not recomputed. Where a value came from is told by the
// layers as they are: the session and the sandbox may have changed since the run started, so a value
// none of them holds any more reads as `unknown`.
import {
  sessionOverrideOf,
  type Run,
  type Sandbox,
  type Session,
  type Variable,
  type WorkflowNode,
} from '@sandflow/crds';
import { STEP_ENV, stepTaskName, type ArgoApiWorkflow } from '@sandflow/kube';

/** What the compiler adds to every step's environment after the sandbox's own variables. */
const PLATFORM_VARIABLES: ReadonlySet<string> = new Set(Object.values(STEP_ENV));

/** The layer a value came from, the overriding one first: session override, workflow node, sandbox default. */
export type VariableSource = 'session' | 'workflow' | 'sandbox' | 'unknown';

export interface RunVariable {
  name: string;
  value: string;
  source: VariableSource;
}

export interface RunVariables {
  /** False when the run has no Argo Workflow to read (not admitted yet, or gone): `sandboxes` is then empty. */
  compiled: boolean;
  sandboxes: { id: string; name: string; variables: RunVariable[] }[];
}

const holds = (list: Variable[] | undefined, name: string, value: string) =>
  (list ?? []).some((v) => v.name === name && (v.value ?? '') === value);

/**
 * Per node of the run's graph snapshot, the environment of its step template in the Argo Workflow,
 * without the platform's SANDFLOW_* variables, each with the layer that holds that value now.
 */
export function runVariablesOf(input: {
  run: Run;
  workflow: ArgoApiWorkflow | null;
  session: Session | undefined;
  sandboxOf: (node: WorkflowNode) => Sandbox | undefined;
}): RunVariables {
  const { run, workflow, session } = input;
  if (!workflow) return { compiled: false, sandboxes: [] };
  const templates = workflow.spec?.templates ?? [];
  const sandboxes = (run.status?.workflow?.nodes ?? []).map((node) => {
    const template = templates.find((t) => t.name === stepTaskName(node.name));
    const env = (template?.container?.env ?? []).filter(
      (e) => !PLATFORM_VARIABLES.has(e.name) && e.value !== undefined,
    );
    const sessionVars = sessionOverrideOf(session?.spec.variables, node);
    const sandboxVars = input.sandboxOf(node)?.spec.variables;
    const variables = env.map(({ name, value = '' }): RunVariable => {
      const source: VariableSource = holds(sessionVars, name, value)
        ? 'session'
        : holds(node.variables, name, value)
          ? 'workflow'
          : holds(sandboxVars, name, value)
            ? 'sandbox'
            : 'unknown';
      return { name, value, source };
    });
    return { id: node.id, name: node.name, variables };
  });
  return { compiled: true, sandboxes };
}
