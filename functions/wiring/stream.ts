/** Wiring of streamed runs: the Step worker's engine, run in this process, and Finalize's log writing. */
import { routeIn } from '../../catalog/route-definition';
import { workflowRoutes } from '../../catalog/workflow-routes';
import type { StreamDeps } from '../../core/runs/stream';
import { finalizeDeps } from './finalize';
import { stepDeps } from './step';
import { setting } from '../settings';

/**
 * `STREAM_BUDGET_MS`, else the execute route's time-out less 15 s: the run must end, and be logged,
 * before the function running it is stopped.
 */
export function streamBudgetInMs(): number {
  return (
    setting('STREAM_BUDGET_MS') ??
    (routeIn(workflowRoutes, 'executeWorkflow').timeoutInSeconds ?? 29) * 1000 - 15_000
  );
}

export function streamDeps(): StreamDeps {
  return { step: stepDeps(), finalize: finalizeDeps(), budgetInMs: streamBudgetInMs() };
}
