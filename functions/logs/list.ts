import { logRoutes } from '../../catalog/log-routes';
import { listLogs } from '../../core/logs/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { limitsOf } from '../wiring/limits';
import { logDeps } from '../wiring/logs';

export const handler = httpRoute(logRoutes, 'listLogs', async ({ principal, query, limits }) => {
  const { itemsRead: _itemsRead, ...page } = await listLogs(logDeps(), principal, query);
  return ok({ ...page, limits: await limitsOf(principal, limits) });
});
