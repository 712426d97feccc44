/**
 * Dispatching: a run's completion event records and queues one delivery per subscription it matches
 * (recorded once however often the event arrives), alert rules are applied to each run, and the
 * scheduled check fires the alerts of workflows that stopped running.
 */
import type { ExecutionLogStore } from '../runs/log';
import { checkNoActivity, observeRun } from './alerts';
import { alertDelivery, newDelivery } from './deliveries';
import { subscriptionMatches } from './matching';
import type { MessageContext } from './messages';
import type { NotificationDeps } from './subscriptions';
import type {
  AlertRule,
  AlertStateRecord,
  CompletionEvent,
  DeliveryRecord,
  EventExtras,
  NotificationRecord,
} from './types';

/** Records and queues one delivery per matching subscription; answers how many were new. */
export interface DispatchDeps extends Pick<NotificationDeps, 'notifications' | 'queue'> {
  logs: Pick<ExecutionLogStore, 'getLogEntry'>;
  /** The workflow's name, for e-mail and chat messages. */
  workflows?: { getWorkflow(id: string): Promise<{ name: string } | undefined> };
  /** `PUBLIC_BASE_URL`: makes the log link of e-mail and chat messages absolute. */
  publicBaseUrl?: string;
  /** The limits block of a user now, for `includeRateLimits` and `includeUsageData`. */
  limitsOf?: (userId: string) => Promise<{ workflowExecutionRateLimit: unknown; usage: unknown } | undefined>;
}

export async function dispatchEvent(deps: DispatchDeps, event: CompletionEvent): Promise<number> {
  const subscriptions = (await deps.notifications.listNotifications(event.workspaceId)).filter(
    (subscription) => subscriptionMatches(subscription, event),
  );
  // The large parts travel in the log entry, not in the queue message; read only when asked for.
  const needsData = subscriptions.some(
    (subscription) => subscription.includeFinalOutput || subscription.includeTraceSpans,
  );
  const entry = needsData ? await deps.logs.getLogEntry(event.logId) : undefined;
  const needsLimits = subscriptions.some(
    (subscription) => subscription.includeRateLimits || subscription.includeUsageData,
  );
  const limits = needsLimits && event.userId ? await deps.limitsOf?.(event.userId) : undefined;
  const extras: EventExtras = {
    ...(entry
      ? { finalOutput: entry.executionData.finalOutput, traceSpans: entry.executionData.traceSpans }
      : {}),
    ...(limits ? { rateLimits: limits.workflowExecutionRateLimit, usage: limits.usage } : {}),
  };
  const needsName = subscriptions.some(
    (subscription) => subscription.channel !== 'webhook' || subscription.alert,
  );
  const workflow = needsName ? await deps.workflows?.getWorkflow(event.workflowId) : undefined;
  const context: MessageContext = {
    workflowName: workflow?.name ?? event.workflowId,
    logUrl: `${deps.publicBaseUrl?.replace(/\/$/, '') ?? ''}/api/v1/logs/${event.logId}`,
  };
  let created = 0;
  for (const subscription of subscriptions) {
    const delivery = subscription.alert
      ? await alertDeliveryOf(deps, subscription, event, context)
      : newDelivery(event, subscription, extras, context);
    if (!delivery) continue;
    if (await deps.notifications.createDelivery(delivery)) created += 1;
    // Queued even when it existed: an earlier dispatch may have stopped between the two. A
    // delivery that is already finished ignores the message.
    await deps.queue.enqueueDelivery({
      notificationId: subscription.id,
      deliveryId: delivery.id,
      createdAt: delivery.createdAt,
    });
  }
  return created;
}

/**
 * Applies a run to the subscription's alert state (written back only if nobody changed it
 * meanwhile; else read again and re-applied) and answers the delivery of the alert when it fires.
 * A run already counted (a redelivered event) changes nothing.
 */
async function alertDeliveryOf(
  deps: DispatchDeps,
  subscription: NotificationRecord,
  event: CompletionEvent,
  context: MessageContext,
): Promise<DeliveryRecord | undefined> {
  const alert = subscription.alert as AlertRule;
  for (let attempt = 0; attempt < 10; attempt++) {
    const stored = await deps.notifications.getAlertState(subscription.id, event.workflowId);
    if (stored?.state.seenEventIds.includes(event.id)) return undefined;
    const { state, fired } = observeRun(stored?.state, alert, {
      at: Date.parse(event.endedAt),
      failed: event.level === 'error',
      durationMs: event.totalDurationMs,
      costUsd: event.cost.total,
    });
    const record: AlertStateRecord = {
      ...state,
      seenEventIds: [...(stored?.state.seenEventIds ?? []), event.id].slice(-50),
    };
    const delivery = fired ? alertDelivery(subscription, fired, event.workflowId, context, event) : undefined;
    // The delivery first: a crash before the state is written re-fires the same delivery id.
    if (delivery) await deps.notifications.createDelivery(delivery);
    if (
      await deps.notifications.putAlertState(subscription.id, event.workflowId, record, stored?.version ?? 0)
    )
      return delivery;
  }
  throw new Error(
    `The alert state of ${subscription.id} for ${event.workflowId} kept changing; the event will be handled again`,
  );
}

export interface InactivityDeps extends Pick<DispatchDeps, 'notifications' | 'queue' | 'publicBaseUrl'> {
  workflows: {
    getWorkflow(id: string): Promise<{ name: string } | undefined>;
    listWorkflows(workspaceId: string): Promise<Array<{ id: string; name: string }>>;
  };
  now: () => Date;
}

/**
 * The scheduled `no_activity` check: for each such subscription and each workflow in its scope, an
 * alert when nothing ran for its hours (counted from the last run, or from when the subscription
 * was made). Answers how many alerts it queued.
 */
export async function checkInactivity(deps: InactivityDeps): Promise<number> {
  const now = deps.now().getTime();
  let fired = 0;
  for (const { workspaceId, id } of await deps.notifications.listNoActivitySubscriptions()) {
    const subscription = await deps.notifications.getNotification(workspaceId, id);
    if (!subscription?.alert || !subscription.active) continue;
    const workflows = subscription.allWorkflows
      ? await deps.workflows.listWorkflows(workspaceId)
      : (
          await Promise.all(
            subscription.workflowIds.map(async (workflowId) => {
              const workflow = await deps.workflows.getWorkflow(workflowId);
              return workflow ? { id: workflowId, name: workflow.name } : undefined;
            }),
          )
        ).filter((workflow): workflow is { id: string; name: string } => workflow !== undefined);
    for (const workflow of workflows) {
      const stored = await deps.notifications.getAlertState(subscription.id, workflow.id);
      const check = checkNoActivity(
        stored?.state,
        subscription.alert,
        now,
        Date.parse(subscription.createdAt),
      );
      if (!check.fired) continue;
      const record: AlertStateRecord = { ...check.state, seenEventIds: stored?.state.seenEventIds ?? [] };
      // Another check wrote first: it fired (or found activity); this one leaves it.
      if (
        !(await deps.notifications.putAlertState(subscription.id, workflow.id, record, stored?.version ?? 0))
      )
        continue;
      const context: MessageContext = { workflowName: workflow.name, logUrl: '' };
      const delivery = alertDelivery(subscription, check.fired, workflow.id, context, undefined, now);
      await deps.notifications.createDelivery(delivery);
      await deps.queue.enqueueDelivery({
        notificationId: subscription.id,
        deliveryId: delivery.id,
        createdAt: delivery.createdAt,
      });
      fired += 1;
    }
  }
  return fired;
}
