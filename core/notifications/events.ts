/** The completion event of a run, made from its log entry when Finalize has written it. */
import type { ExecutionLogEntry } from '../runs/log';
import type { CompletionEvent } from './types';

export function completionEventOf(
  entry: ExecutionLogEntry,
  timestampInMs: number,
  userId?: string,
): CompletionEvent {
  return {
    id: `evt_${entry.executionId}`,
    type: 'workflow.execution.completed',
    timestamp: timestampInMs,
    workspaceId: entry.workspaceId,
    workflowId: entry.workflowId,
    executionId: entry.executionId,
    logId: entry.id,
    ...(userId ? { userId } : {}),
    level: entry.level,
    trigger: entry.trigger,
    startedAt: entry.startedAt,
    endedAt: entry.endedAt,
    totalDurationMs: entry.totalDurationMs,
    cost: entry.cost,
    files: entry.files,
    ...(entry.executionData.error === undefined ? {} : { error: entry.executionData.error }),
  };
}
