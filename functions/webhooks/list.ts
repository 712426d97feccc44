import { webhookRoutes } from '../../catalog/webhook-routes';
import { listWebhooks } from '../../core/webhooks/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { publicBaseUrl, webhookDeps } from '../wiring/webhooks';

export const handler = httpRoute(
  webhookRoutes,
  'listWebhooks',
  async ({ principal, params, headers, event }) =>
    ok({
      data: await listWebhooks(webhookDeps(), principal, params.workflowId, publicBaseUrl(event, headers)),
    }),
);
