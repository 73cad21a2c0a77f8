import type { Run, Sandbox, Session, WorkflowNode } from '@sandflow/crds';
import type { ArgoApiWorkflow } from '@sandflow/kube';
import { describe, expect, it } from 'vitest';
import { runVariablesOf, type RunVariables } from './run-variables.js';

const node = (over: Partial<WorkflowNode> & { name: string }): WorkflowNode => ({
  id: `id-${over.name}`,
  sandbox: `sb-uuid-${over.name}`,
  ...over,
});

const run = (nodes: WorkflowNode[]): Run => ({
  apiVersion: 'sandflow.io/v1alpha1',
  kind: 'Run',
  metadata: { name: 'r1', namespace: 'sf-org-grp' },
  spec: { session: 'sess' },
  status: { argoWorkflow: 'r1', workflow: { name: 'wf', nodes } },
});

/** An Argo Workflow with one step template per sandbox, its env as the compiler writes it. */
const argo = (envs: Record<string, { name: string; value?: string }[]>): ArgoApiWorkflow =>
  ({
    metadata: { name: 'r1' },
    spec: {
      templates: [
        { name: 'main', dag: { tasks: [] } },
        ...Object.entries(envs).map(([task, env]) => ({
          name: task,
          container: {
            image: 'alpine',
            env: [
              ...env,
              { name: 'SANDFLOW_DIR', value: '/sandflow' },
              { name: 'SANDFLOW_OUTPUT', value: '/sandflow/x' },
              { name: 'SANDFLOW_SANDBOX', value: 'x' },
              { name: 'SANDFLOW_RUN', value: '{{workflow.name}}' },
              { name: 'SANDFLOW_INSTANCE', value: '{{inputs.parameters.instance}}' },
            ],
          },
        })),
      ],
    },
  }) as unknown as ArgoApiWorkflow;

const session = (variables: Record<string, { name: string; value: string }[]>): Session =>
  ({
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Session',
    metadata: { name: 'sess' },
    spec: { workflow: 'wf', variables },
  }) as unknown as Session;

const sandbox = (variables: { name: string; value: string }[]) =>
  ({ spec: { name: 'sb', entrypoint: 'true', variables } }) as unknown as Sandbox;

describe('runVariablesOf: what each sandbox ran with, from the Argo Workflow', () => {
  it.each<[string, Parameters<typeof runVariablesOf>[0], RunVariables]>([
    [
      'no Argo Workflow yet: not compiled, nothing listed',
      { run: run([node({ name: 'a' })]), workflow: null, session: undefined, sandboxOf: () => undefined },
      { compiled: false, sandboxes: [] },
    ],
    [
      'each value with the layer that holds it: session over workflow over sandbox; the platform’s left out',
      {
        run: run([
          node({
            name: 'step_one',
            variables: [
              { name: 'MODE', value: 'fast' },
              { name: 'LEVEL', value: '2' },
            ],
          }),
        ]),
        workflow: argo({
          'sb-step-one': [
            { name: 'HOME_DIR', value: '/data' },
            { name: 'MODE', value: 'fast' },
            { name: 'LEVEL', value: '3' },
          ],
        }),
        session: session({ step_one: [{ name: 'LEVEL', value: '3' }] }),
        sandboxOf: () =>
          sandbox([
            { name: 'HOME_DIR', value: '/data' },
            { name: 'MODE', value: 'slow' },
          ]),
      },
      {
        compiled: true,
        sandboxes: [
          {
            id: 'id-step_one',
            name: 'step_one',
            variables: [
              { name: 'HOME_DIR', value: '/data', source: 'sandbox' },
              { name: 'MODE', value: 'fast', source: 'workflow' },
              { name: 'LEVEL', value: '3', source: 'session' },
            ],
          },
        ],
      },
    ],
    [
      'session variables keyed by the sandbox id; a value no layer holds any more is unknown; a node without a template has none',
      {
        run: run([node({ name: 'a' }), node({ name: 'b' })]),
        workflow: argo({
          'sb-a': [
            { name: 'X', value: 'from-session' },
            { name: 'Y', value: 'changed-since' },
          ],
        }),
        session: session({ 'sb-uuid-a': [{ name: 'X', value: 'from-session' }] }),
        sandboxOf: () => sandbox([{ name: 'Y', value: 'new-default' }]),
      },
      {
        compiled: true,
        sandboxes: [
          {
            id: 'id-a',
            name: 'a',
            variables: [
              { name: 'X', value: 'from-session', source: 'session' },
              { name: 'Y', value: 'changed-since', source: 'unknown' },
            ],
          },
          { id: 'id-b', name: 'b', variables: [] },
        ],
      },
    ],
  ])('%s', (_case, input, expected) => {
    expect(runVariablesOf(input)).toEqual(expected);
  });
});
