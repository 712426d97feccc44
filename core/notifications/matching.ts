/** Which subscriptions an event goes to. */
import type { CompletionEvent, NotificationRecord } from './types';

export function subscriptionMatches(subscription: NotificationRecord, event: CompletionEvent): boolean {
  if (!subscription.active || subscription.workspaceId !== event.workspaceId) return false;
  if (!subscription.allWorkflows && !subscription.workflowIds.includes(event.workflowId)) return false;
  if (!subscription.levelFilter.includes(event.level)) return false;
  return subscription.triggerFilter.includes(event.trigger);
}
