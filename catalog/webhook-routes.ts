/** Webhook triggers: managing them, and calling one. Spread into the route table (catalog/routes.ts). */
import { type RouteDefinition, entities, entitiesWrite, workflowGraphs } from './route-definition';
import * as s from './schemas';
import * as z from './zod';

export const webhookRoutes = [
  // Webhook triggers
  {
    id: 'createWebhook',
    method: 'POST',
    path: '/api/workflows/{workflowId}/webhooks',
    entry: 'functions/webhooks/create.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Create a webhook trigger: a path that starts the workflow when called',
    tag: 'triggers',
    request: { params: s.workflowIdParams, body: s.createWebhookBody },
    responses: { 201: { description: 'Created', body: s.data(s.webhook) } },
    access: { ...entitiesWrite, ...workflowGraphs, keys: { environment: 'encrypt' } },
  },
  {
    id: 'listWebhooks',
    method: 'GET',
    path: '/api/workflows/{workflowId}/webhooks',
    entry: 'functions/webhooks/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: "The workflow's webhook triggers",
    tag: 'triggers',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'Webhooks', body: s.data(z.array(s.webhook)) } },
    access: { ...entities, ...workflowGraphs },
  },
  {
    id: 'deleteWebhook',
    method: 'DELETE',
    path: '/api/workflows/{workflowId}/webhooks/{webhookId}',
    entry: 'functions/webhooks/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Remove a webhook trigger',
    tag: 'triggers',
    request: { params: s.webhookParams },
    responses: { 200: { description: 'Removed' } },
    access: { ...entitiesWrite, ...workflowGraphs },
  },
  {
    id: 'triggerWebhook',
    method: 'POST',
    path: '/api/webhooks/trigger/{path}',
    entry: 'functions/webhooks/trigger.ts',
    auth: 'none',
    permission: 'public',
    summary: 'Start the workflow of a webhook trigger (signed or bearer when it has a secret)',
    tag: 'triggers',
    request: { params: s.webhookTriggerParams },
    responses: { 202: { description: 'Queued', body: s.asyncResult } },
    // A run's input files given by URL are fetched through the outbound guard.
    makesOutboundRequests: true,
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      buckets: { files: 'readWrite' },
      queues: { jobs: 'send' },
      keys: { environment: 'decrypt' },
    },
    // The call draws from the async bucket of the webhook's owner.
    rateLimit: 'handler',
  },
] as const satisfies readonly RouteDefinition[];
