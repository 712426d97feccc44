/**
 * How long a sync run may take in all (`SYNC_BUDGET_MS`, default 27 s): API Gateway gives up on a
 * REST integration at 29 s, and Finalize and the answer need the rest. Apart from ./execution.ts,
 * so that the Step function, which reads it, does not load the Step Functions client at init.
 */
import { setting } from '../settings';
export function syncBudgetInMs(): number {
  return setting('SYNC_BUDGET_MS');
}
