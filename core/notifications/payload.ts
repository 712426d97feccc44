/** What a webhook delivery sends: the interface's payload and headers. */
import { signatureHeaderOf } from '../webhooks/signature';
import type { CompletionEvent, EventExtras, NotificationRecord } from './types';

/** `workflow.execution.completed`: the run's facts, plus what the subscription's include flags ask for. */
export function completionPayload(
  event: CompletionEvent,
  subscription: Pick<
    NotificationRecord,
    'includeFinalOutput' | 'includeTraceSpans' | 'includeRateLimits' | 'includeUsageData'
  >,
  extras: EventExtras = {},
): Record<string, unknown> {
  return {
    id: event.id,
    type: event.type,
    timestamp: event.timestamp,
    data: {
      workflowId: event.workflowId,
      executionId: event.executionId,
      status: event.level === 'error' ? 'error' : 'success',
      level: event.level,
      trigger: event.trigger,
      startedAt: event.startedAt,
      endedAt: event.endedAt,
      totalDurationMs: event.totalDurationMs,
      cost: event.cost,
      files: event.files,
      ...(subscription.includeFinalOutput ? { finalOutput: extras.finalOutput ?? null } : {}),
      ...(subscription.includeTraceSpans ? { traceSpans: extras.traceSpans ?? [] } : {}),
      ...(subscription.includeRateLimits && extras.rateLimits !== undefined
        ? { rateLimits: extras.rateLimits }
        : {}),
      ...(subscription.includeUsageData && extras.usage !== undefined ? { usage: extras.usage } : {}),
    },
    links: {
      log: `/v1/logs/${event.logId}`,
      execution: `/v1/logs/executions/${event.executionId}`,
    },
  };
}

/**
 * The headers of one attempt: `svc-timestamp` and the signature's `t` are the same Unix
 * milliseconds, the time of the attempt; the delivery id is the idempotency key of every attempt.
 */
export function deliveryHeaders(options: {
  eventType: string;
  deliveryId: string;
  body: string;
  timestampInMs: number;
  secret?: string;
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'svc-event': options.eventType,
    'svc-timestamp': String(options.timestampInMs),
    'svc-delivery-id': options.deliveryId,
    'Idempotency-Key': options.deliveryId,
    ...(options.secret
      ? { 'svc-signature': signatureHeaderOf(options.secret, options.timestampInMs, options.body) }
      : {}),
  };
}

/** `workflow.alert`: the rule that fired, what was observed, and the run that fired it (when a run did). */
export function alertPayload(options: {
  id: string;
  timestampInMs: number;
  workflowId: string;
  workflowName: string;
  alert: { rule: string; threshold: number; windowHours?: number; observed: number; message: string };
  execution?: { event: CompletionEvent; subscription: Parameters<typeof completionPayload>[1] };
}): Record<string, unknown> {
  const execution = options.execution
    ? completionPayload(options.execution.event, options.execution.subscription)
    : undefined;
  return {
    id: options.id,
    type: 'workflow.alert',
    timestamp: options.timestampInMs,
    data: {
      workflowId: options.workflowId,
      workflowName: options.workflowName,
      alert: options.alert,
      ...(execution ? { execution: execution.data } : {}),
    },
    ...(execution ? { links: execution.links } : {}),
  };
}
