// The one model of Argo's objects: the interfaces of @kubernetes-models/argo-workflows (generated from
// Argo's Go types), under shorter names.
import type { IArtifact } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/Artifact';
import type { ICronWorkflow } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/CronWorkflow';
import type { ICronWorkflowSpec } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/CronWorkflowSpec';
import type { IDAGTask } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/DAGTask';
import type { IDAGTemplate } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/DAGTemplate';
import type { INodeStatus } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/NodeStatus';
import type { IParameter } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/Parameter';
import type { IScriptTemplate } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/ScriptTemplate';
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
export type CronWorkflowSpec = ICronWorkflowSpec;
export type ArgoDagTemplate = IDAGTemplate;
export type ArgoScriptTemplate = IScriptTemplate;
export type ArgoParameter = IParameter;
export type ArgoArtifact = IArtifact;

/** Node phases after which Argo never changes a node again. */
export const FINAL_NODE_PHASES: ReadonlySet<string> = new Set([
  'Succeeded',
  'Failed',
  'Error',
  'Skipped',
  'Omitted',
]);
export const FINAL_WORKFLOW_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed', 'Error']);
