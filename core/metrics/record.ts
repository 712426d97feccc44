/** What Finalize hands the counters when it has written a run's log entry (once per run). */
import type { ExecutionLogEntry } from '../runs/log';
import type { MetricsStore, RunOutcome } from './types';

export function runOutcomeOf(
  entry: Pick<
    ExecutionLogEntry,
    'workspaceId' | 'workflowId' | 'endedAt' | 'level' | 'totalDurationMs' | 'cost'
  >,
): RunOutcome {
  return {
    workspaceId: entry.workspaceId,
    workflowId: entry.workflowId,
    endedAt: entry.endedAt,
    failed: entry.level === 'error',
    durationInMs: entry.totalDurationMs,
    costInUsd: entry.cost.total,
  };
}

export function recordRunMetrics(
  store: Pick<MetricsStore, 'recordRun'>,
  entry: Parameters<typeof runOutcomeOf>[0],
): Promise<void> {
  return store.recordRun(runOutcomeOf(entry));
}
