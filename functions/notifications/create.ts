import { notificationRoutes } from '../../catalog/notification-routes';
import { createNotification } from '../../core/notifications/subscriptions';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { notificationDeps } from '../wiring/notifications';
import { webhookUrlRefusal } from '../wiring/webhook-url-check';

export const handler = httpRoute(
  notificationRoutes,
  'createNotification',
  async ({ principal, params, body }) =>
    created({
      data: await createNotification(
        { ...notificationDeps(), outboundRefusal: webhookUrlRefusal },
        principal,
        params.workspaceId,
        body,
      ),
    }),
);
