/** Wiring of forms: the store, workflows (their deployments), identity. */
import { DynamoFormStore } from '../../adapters/dynamodb/form-store';
import type { FormDeps } from '../../core/forms/service';
import { identityDeps } from './identity';
import { workflowDeps } from './workflows';

export function formDeps(): FormDeps {
  return {
    identity: identityDeps().store,
    workflows: workflowDeps().workflows,
    forms: DynamoFormStore.fromEnv(),
    now: () => new Date(),
  };
}

/** What deleting a workflow needs to retire its forms (`deleteWorkflowForms`): the store only. */
export function workflowFormDeps(): Pick<FormDeps, 'forms'> {
  return { forms: DynamoFormStore.fromEnv() };
}
