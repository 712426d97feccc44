/**
 * Wiring of the run path: the execution starter for the execute route (a run's preparation:
 * ./prepare.ts; Finalize's deps: ./finalize.ts, kept apart so the routes' bundles leave them out).
 */
import { SfnExecutionStarter } from '../../adapters/aws/sfn-execution-starter';
import type { ExecutionStarter } from '../../core/runs/types';
import { overrides } from './overrides';

export function executionStarter(): ExecutionStarter {
  return overrides.executionStarter ?? SfnExecutionStarter.fromEnv();
}
