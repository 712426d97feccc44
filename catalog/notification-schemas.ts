/** Wire schemas of notification subscriptions and their deliveries. */
import { z } from 'zod';
import { alertRules, deliveryStatuses, notificationChannels } from '../core/notifications/types';
import { id, trigger } from './schemas';

const level = z.enum(['info', 'error']);

export const notificationBody = z.strictObject({
  channel: z.enum(notificationChannels),
  workflowIds: z.array(id).max(100).optional(),
  allWorkflows: z.boolean().optional(),
  levelFilter: z.array(level).min(1, 'Give at least one level'),
  triggerFilter: z.array(trigger).min(1, 'Give at least one trigger'),
  includeFinalOutput: z.boolean().optional(),
  includeTraceSpans: z.boolean().optional(),
  includeRateLimits: z.boolean().optional(),
  includeUsageData: z.boolean().optional(),
  webhook: z
    .strictObject({
      url: z.url({ protocol: /^https?$/, message: 'Must be an http or https URL' }),
      secret: z.string().min(8, 'At least 8 characters').max(512).optional(),
    })
    .optional(),
  email: z.strictObject({ recipients: z.array(z.email()).min(1).max(10) }).optional(),
  chat: z
    .union([
      z.strictObject({ webhookUrl: z.url({ protocol: /^https?$/ }) }),
      z.strictObject({ channel: z.string().min(1).max(200), token: z.string().min(1).max(512) }),
    ])
    .optional(),
  alert: z
    .strictObject({
      rule: z.enum(alertRules),
      threshold: z.number().positive().optional(),
      windowHours: z
        .number()
        .positive()
        .max(24 * 30)
        .optional(),
    })
    .optional(),
  active: z.boolean().optional(),
});

export const notificationParams = z.object({ workspaceId: id, notificationId: id });

export const notification = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    channel: z.enum(notificationChannels),
    workflowIds: z.array(z.string()),
    allWorkflows: z.boolean(),
    levelFilter: z.array(level),
    triggerFilter: z.array(trigger),
    includeFinalOutput: z.boolean(),
    includeTraceSpans: z.boolean(),
    includeRateLimits: z.boolean(),
    includeUsageData: z.boolean(),
    webhook: z
      .object({ url: z.string(), hasSecret: z.boolean() })
      .optional()
      .describe('The secret is never answered'),
    active: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Notification' });

export const delivery = z
  .object({
    id: z.string(),
    eventId: z.string(),
    status: z.enum(deliveryStatuses),
    attempts: z.number().int(),
    responseStatus: z.number().int().optional(),
    responseExcerpt: z.string().optional(),
    error: z.string().optional(),
    history: z.array(
      z.object({ at: z.string(), responseStatus: z.number().int().optional(), error: z.string().optional() }),
    ),
    createdAt: z.string(),
    nextAttemptAt: z.string().optional(),
    completedAt: z.string().optional(),
  })
  .meta({ id: 'NotificationDelivery' });
