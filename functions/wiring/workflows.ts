import { DynamoWorkflowStore } from '../../adapters/dynamodb/workflow-store';
import type { WorkflowDeps } from '../../core/workflows/service';
import { identityDeps } from './identity';
import { blobStore } from './storage';

export function workflowDeps(): WorkflowDeps {
  return {
    identity: identityDeps().store,
    workflows: DynamoWorkflowStore.fromEnv({ blobStore: blobStore() }),
    now: () => new Date(),
  };
}
