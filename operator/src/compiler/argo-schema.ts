// Validation of compiled objects against the Argo Workflows schema (@kubernetes-models/argo-workflows).
import { Workflow, type IWorkflow } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/Workflow';
import {
  CronWorkflow,
  type ICronWorkflow,
} from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/CronWorkflow';

/** Throws a ValidationError listing every schema violation. */
export function assertValidArgoWorkflow(obj: IWorkflow): void {
  new Workflow(obj).validate();
}

export function assertValidArgoCronWorkflow(obj: ICronWorkflow): void {
  new CronWorkflow(obj).validate();
}
