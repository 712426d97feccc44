/** A completion event as Finalize publishes it, for the run `executionId` of workflow wf_1 in workspace ws_1. */
import type { CompletionEvent } from '../../core/notifications/types';

export function completionEventOf(
  executionId: string,
  fields: Partial<CompletionEvent> = {},
): CompletionEvent {
  return {
    id: `evt_${executionId}`,
    type: 'workflow.execution.completed',
    timestamp: Date.parse('2026-01-01T10:00:00.000Z'),
    workspaceId: 'ws_1',
    workflowId: 'wf_1',
    executionId,
    logId: `log_${executionId}`,
    level: 'info',
    trigger: 'api',
    startedAt: '2026-01-01T09:59:59.000Z',
    endedAt: '2026-01-01T10:00:00.000Z',
    totalDurationMs: 1000,
    cost: { total: 0.001, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
    files: null,
    ...fields,
  };
}
