/** Wire schemas of notification subscriptions and their deliveries. */
import * as z from './zod';
import { alertRules, deliveryStatuses, logLevels, notificationChannels } from '../core/notifications/types';
import { id, trigger } from './schemas';

const level = z.enum(logLevels);

export const notificationBody = z.strictObject({
  channel: z.enum(notificationChannels),
  workflowIds: z.optional(z.array(id).check(z.maxLength(100))),
  allWorkflows: z.optional(z.boolean()),
  levelFilter: z
    .optional(z.array(level).check(z.minLength(1, 'Give at least one level')))
    .register(z.globalRegistry, { description: 'Every level when not given' }),
  triggerFilter: z
    .optional(z.array(trigger).check(z.minLength(1, 'Give at least one trigger')))
    .register(z.globalRegistry, { description: 'Every trigger when not given' }),
  includeFinalOutput: z.optional(z.boolean()),
  includeTraceSpans: z.optional(z.boolean()),
  includeRateLimits: z.optional(z.boolean()),
  includeUsageData: z.optional(z.boolean()),
  webhook: z.optional(
    z.strictObject({
      url: z.url({ protocol: /^https?$/, message: 'Must be an http or https URL' }),
      secret: z.optional(z.string().check(z.minLength(8, 'At least 8 characters'), z.maxLength(512))),
    }),
  ),
  email: z.optional(
    z.strictObject({ recipients: z.array(z.email()).check(z.minLength(1), z.maxLength(10)) }),
  ),
  chat: z.optional(
    z.union([
      z.strictObject({ webhookUrl: z.url({ protocol: /^https?$/ }) }),
      z.strictObject({
        channel: z.string().check(z.minLength(1), z.maxLength(200)),
        token: z.string().check(z.minLength(1), z.maxLength(512)),
      }),
    ]),
  ),
  alert: z.optional(
    z.strictObject({
      rule: z.enum(alertRules),
      threshold: z.optional(z.number().check(z.positive())),
      windowHours: z.optional(z.number().check(z.positive(), z.lte(24 * 30))),
    }),
  ),
  active: z.optional(z.boolean()),
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
      .optional(z.object({ url: z.string(), hasSecret: z.boolean() }))
      .register(z.globalRegistry, { description: 'The secret is never answered' }),
    active: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .register(z.globalRegistry, { id: 'Notification' });

const wholeCount = () => z.number().check(z.int());

export const delivery = z
  .object({
    id: z.string(),
    eventId: z.string(),
    status: z.enum(deliveryStatuses),
    attempts: wholeCount(),
    responseStatus: z.optional(wholeCount()),
    responseExcerpt: z.optional(z.string()),
    error: z.optional(z.string()),
    history: z.array(
      z.object({ at: z.string(), responseStatus: z.optional(wholeCount()), error: z.optional(z.string()) }),
    ),
    createdAt: z.string(),
    nextAttemptAt: z.optional(z.string()),
    completedAt: z.optional(z.string()),
  })
  .register(z.globalRegistry, { id: 'NotificationDelivery' });
