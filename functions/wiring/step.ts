/** Wiring of the Step worker: kept apart so only its bundle carries the engine and the sandbox. */
import { DynamoCheckpointStore } from '../../adapters/dynamodb/checkpoint-store';
import { createQuickJsCodeRunner } from '../../adapters/sandbox/quickjs';
import type { StepDeps } from '../../core/executions/service';
import { deploymentReader } from './execution';
import { blobStore } from './storage';

const codeRunner = createQuickJsCodeRunner();

/** A step hands back to the state machine well before the Lambda's own time-out. */
export const stepBudgetInMs = Number(process.env.STEP_BUDGET_MS ?? 240_000);

export function stepDeps(): StepDeps {
  return {
    deployments: deploymentReader(),
    checkpoints: DynamoCheckpointStore.fromEnv({ blobStore: blobStore() }),
    engine: { codeRunner, now: () => Date.now() },
    budgetInMs: stepBudgetInMs,
  };
}
