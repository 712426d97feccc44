/**
 * How long a sync run may take in all (`SYNC_BUDGET_MS`, default 27 s): API Gateway gives up on a
 * REST integration at 29 s, and Finalize and the answer need the rest. Apart from ./execution.ts,
 * so that the Step function, which reads it, does not load the Step Functions client at init.
 */
export function syncBudgetInMs(): number {
  return positiveNumberFromEnv('SYNC_BUDGET_MS') ?? 27_000;
}

function positiveNumberFromEnv(name: string): number | undefined {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
