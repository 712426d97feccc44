import { webhookRoutes } from '../../catalog/webhook-routes';
import { deleteWebhook } from '../../core/webhooks/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { webhookDeps } from '../wiring/webhooks';

export const handler = httpRoute(webhookRoutes, 'deleteWebhook', async ({ principal, params }) =>
  ok({ data: await deleteWebhook(webhookDeps(), principal, params.workflowId, params.webhookId) }),
);
