import { notificationRoutes } from '../../catalog/notification-routes';
import { listNotifications } from '../../core/notifications/subscriptions';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { notificationDeps } from '../wiring/notifications';

export const handler = httpRoute(notificationRoutes, 'listNotifications', async ({ principal, params }) =>
  ok({ data: await listNotifications(notificationDeps(), principal, params.workspaceId) }),
);
