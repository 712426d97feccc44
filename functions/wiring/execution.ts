/**
 * Wiring of the run path: the execution starter for the execute route (a run's preparation:
 * ./prepare.ts; Finalize's deps: ./finalize.ts, kept apart so the routes' bundles leave them out).
 */
import { SfnExecutionStarter } from '../../adapters/aws/sfn-execution-starter';
import type { ExecutionStarter } from '../../core/runs/types';
import { deploymentReader } from './deployments';
import { overrides } from './overrides';

export { deploymentReader };

/**
 * How long a sync run may take in all (`SYNC_BUDGET_MS`, default 27 s): API Gateway gives up on a
 * REST integration at 29 s, and Finalize and the answer need the rest.
 */
export function syncBudgetInMs(): number {
  return positiveNumberFromEnv('SYNC_BUDGET_MS') ?? 27_000;
}

function positiveNumberFromEnv(name: string): number | undefined {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

export function executionStarter(): ExecutionStarter {
  return overrides.executionStarter ?? SfnExecutionStarter.fromEnv();
}
