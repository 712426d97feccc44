/**
 * Wiring of the run path: the execution starter for the execute route (a run's preparation:
 * ./prepare.ts; Finalize's deps: ./finalize.ts, kept apart so the routes' bundles leave them out).
 */
import { DynamoCheckpointStore } from '../../adapters/dynamodb/checkpoint-store';
import { SfnExecutionStarter } from '../../adapters/aws/sfn-execution-starter';
import { startingByReference } from '../../core/runs/by-reference';
import type { ExecutionStarter } from '../../core/runs/types';
import { overrides } from './overrides';
import { blobStore } from './storage';

/** Large inputs and answers travel by reference through whichever machine runs the run. */
export function executionStarter(): ExecutionStarter {
  return startingByReference(
    overrides.executionStarter ?? SfnExecutionStarter.fromEnv(),
    DynamoCheckpointStore.fromEnv({ blobStore: blobStore() }),
  );
}
