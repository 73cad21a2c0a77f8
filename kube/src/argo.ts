// The one model of Argo's objects: the interfaces of @kubernetes-models/argo-workflows (generated from
// Argo's Go types), narrowed where Argo always sets a field the library marks optional.
import type { ICronWorkflow } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/CronWorkflow';
import type { IDAGTask } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/DAGTask';
import type { INodeStatus } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/NodeStatus';
import type { ITemplate } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/Template';
import type { IWorkflow } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/Workflow';
import type { IWorkflowStatus } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/WorkflowStatus';

export type ArgoWorkflow = IWorkflow;
export type ArgoWorkflowSpec = IWorkflow['spec'];
export type ArgoWorkflowStatus = IWorkflowStatus;
export type ArgoNode = INodeStatus;
export type ArgoTemplate = ITemplate;
export type ArgoDagTask = IDAGTask;
export type CronWorkflow = ICronWorkflow;

/** Node phases after which Argo never changes a node again. */
export const FINAL_NODE_PHASES: ReadonlySet<string> = new Set([
  'Succeeded',
  'Failed',
  'Error',
  'Skipped',
  'Omitted',
]);
export const FINAL_WORKFLOW_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed', 'Error']);
