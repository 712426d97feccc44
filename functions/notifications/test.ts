import { notificationRoutes } from '../../catalog/notification-routes';
import { sendTestEvent } from '../../core/notifications/subscriptions';
import { httpRoute } from '../http/route';
import { notificationDeps } from '../wiring/notifications';

export const handler = httpRoute(notificationRoutes, 'testNotification', async ({ principal, params }) => ({
  statusCode: 202,
  body: {
    data: await sendTestEvent(notificationDeps(), principal, params.workspaceId, params.notificationId),
  },
}));
