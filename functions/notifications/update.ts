import { notificationRoutes } from '../../catalog/notification-routes';
import { updateNotification } from '../../core/notifications/subscriptions';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { notificationDeps } from '../wiring/notifications';
import { webhookUrlRefusal } from '../wiring/webhook-url-check';

export const handler = httpRoute(
  notificationRoutes,
  'updateNotification',
  async ({ principal, params, body }) =>
    ok({
      data: await updateNotification(
        { ...notificationDeps(), outboundRefusal: webhookUrlRefusal },
        principal,
        params.workspaceId,
        params.notificationId,
        body,
      ),
    }),
);
