import { notificationRoutes } from '../../catalog/notification-routes';
import { listDeliveries } from '../../core/notifications/subscriptions';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { notificationDeps } from '../wiring/notifications';

export const handler = httpRoute(
  notificationRoutes,
  'listNotificationDeliveries',
  async ({ principal, params }) =>
    ok({
      data: await listDeliveries(notificationDeps(), principal, params.workspaceId, params.notificationId),
    }),
);
