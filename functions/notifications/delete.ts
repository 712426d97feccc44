import { notificationRoutes } from '../../catalog/notification-routes';
import { deleteNotification } from '../../core/notifications/subscriptions';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { notificationDeps } from '../wiring/notifications';

export const handler = httpRoute(notificationRoutes, 'deleteNotification', async ({ principal, params }) => {
  await deleteNotification(notificationDeps(), principal, params.workspaceId, params.notificationId);
  return ok({ data: { id: params.notificationId, deleted: true } });
});
