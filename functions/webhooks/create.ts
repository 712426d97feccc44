import { webhookRoutes } from '../../catalog/webhook-routes';
import { createWebhook } from '../../core/webhooks/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { publicBaseUrl, webhookDeps } from '../wiring/webhooks';

export const handler = httpRoute(
  webhookRoutes,
  'createWebhook',
  async ({ principal, params, body, headers, event }) =>
    created({
      data: await createWebhook(
        webhookDeps(),
        principal,
        params.workflowId,
        body,
        publicBaseUrl(event, headers),
      ),
    }),
);
