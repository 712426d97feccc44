/** A webhook subscription of workspace ws_1 to every run of every workflow, as the store keeps it. */
import type { NotificationRecord } from '../../core/notifications/types';

export function subscriptionOf(fields: Partial<NotificationRecord> = {}): NotificationRecord {
  return {
    id: 'ntf_1',
    workspaceId: 'ws_1',
    channel: 'webhook',
    workflowIds: [],
    allWorkflows: true,
    levelFilter: ['info', 'error'],
    triggerFilter: ['api', 'webhook', 'schedule', 'manual', 'chat'],
    includeFinalOutput: false,
    includeTraceSpans: false,
    includeRateLimits: false,
    includeUsageData: false,
    webhook: { url: 'https://hooks.example.com/a', secretCiphertext: 'enc:whsec_1' },
    active: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}
