/** Which subscriptions an event goes to. */
import type { CompletionEvent, NotificationRecord } from './types';

export function subscriptionMatches(subscription: NotificationRecord, event: CompletionEvent): boolean {
  if (!subscription.active || subscription.workspaceId !== event.workspaceId) return false;
  if (!subscription.allWorkflows && !subscription.workflowIds.includes(event.workflowId)) return false;
  // An alert rule sees every run of its scope: successes reset and dilute what failures count.
  if (!subscription.alert && !subscription.levelFilter.includes(event.level)) return false;
  return subscription.triggerFilter.includes(event.trigger);
}
