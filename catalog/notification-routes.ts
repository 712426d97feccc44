/** Notification subscriptions and their deliveries. Spread into the route table (catalog/routes.ts). */
import * as notifications from './notification-schemas';
import type { ResourceAccess } from './resources';
import { type RouteDefinition, entities, entitiesWrite, workflowGraphs } from './route-definition';
import * as s from './schemas';
import * as z from './zod';

/** Subscription writes: webhook secrets are encrypted with the environment's key. */
const notificationWrite = {
  tables: { entities: 'readWrite' },
  ...workflowGraphs,
  keys: { environment: 'encrypt' },
} as const satisfies ResourceAccess;

export const notificationRoutes = [
  // Notifications
  {
    id: 'createNotification',
    method: 'POST',
    path: '/api/workspaces/{workspaceId}/notifications',
    entry: 'functions/notifications/create.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Subscribe a webhook to the completions of runs in the workspace (write permission)',
    tag: 'notifications',
    request: { params: s.workspaceIdParams, body: notifications.notificationBody },
    responses: { 201: { description: 'Created', body: s.data(notifications.notification) } },
    access: notificationWrite,
    // A webhook URL is checked as the delivery guard will check it (OUTBOUND_ALLOWLIST).
    makesOutboundRequests: true,
  },
  {
    id: 'listNotifications',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}/notifications',
    entry: 'functions/notifications/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: "The workspace's notification subscriptions",
    tag: 'notifications',
    request: { params: s.workspaceIdParams },
    responses: { 200: { description: 'Subscriptions', body: s.data(z.array(notifications.notification)) } },
    access: { ...entities, ...workflowGraphs },
  },
  {
    id: 'getNotification',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}',
    entry: 'functions/notifications/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'One notification subscription',
    tag: 'notifications',
    request: { params: notifications.notificationParams },
    responses: { 200: { description: 'Subscription', body: s.data(notifications.notification) } },
    access: { ...entities, ...workflowGraphs },
  },
  {
    id: 'updateNotification',
    method: 'PUT',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}',
    entry: 'functions/notifications/update.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Replace a subscription (a webhook secret left out is kept for the same URL)',
    tag: 'notifications',
    request: { params: notifications.notificationParams, body: notifications.notificationBody },
    responses: { 200: { description: 'Subscription', body: s.data(notifications.notification) } },
    access: notificationWrite,
    // A webhook URL is checked as the delivery guard will check it (OUTBOUND_ALLOWLIST).
    makesOutboundRequests: true,
  },
  {
    id: 'deleteNotification',
    method: 'DELETE',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}',
    entry: 'functions/notifications/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Remove a subscription; deliveries under way end as failed',
    tag: 'notifications',
    request: { params: notifications.notificationParams },
    responses: {
      200: { description: 'Deleted', body: s.data(z.object({ id: z.string(), deleted: z.literal(true) })) },
    },
    access: { ...entitiesWrite, ...workflowGraphs },
  },
  {
    id: 'testNotification',
    method: 'POST',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}/test',
    entry: 'functions/notifications/test.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Send a sample event to the subscription now',
    tag: 'notifications',
    request: { params: notifications.notificationParams },
    responses: { 202: { description: 'Queued delivery', body: s.data(notifications.delivery) } },
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      buckets: { files: 'readWrite' },
      queues: { notifications: 'send' },
    },
  },
  {
    id: 'listNotificationDeliveries',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}/notifications/{notificationId}/deliveries',
    entry: 'functions/notifications/deliveries.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'The last 100 deliveries of a subscription, newest first, with every attempt',
    tag: 'notifications',
    request: { params: notifications.notificationParams },
    responses: { 200: { description: 'Deliveries', body: s.data(z.array(notifications.delivery)) } },
    access: { tables: { entities: 'read', executions: 'read' }, buckets: { files: 'read' } },
  },
] as const satisfies readonly RouteDefinition[];
