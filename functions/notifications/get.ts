import { notificationRoutes } from '../../catalog/notification-routes';
import { getNotification } from '../../core/notifications/subscriptions';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { notificationDeps } from '../wiring/notifications';

export const handler = httpRoute(notificationRoutes, 'getNotification', async ({ principal, params }) =>
  ok({
    data: await getNotification(notificationDeps(), principal, params.workspaceId, params.notificationId),
  }),
);
