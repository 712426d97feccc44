import { logRoutes } from '../../catalog/log-routes';
import { getLogDetail } from '../../core/logs/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { limitsOf } from '../wiring/limits';
import { logDeps } from '../wiring/logs';

export const handler = httpRoute(logRoutes, 'getLog', async ({ principal, params, limits }) => {
  const detail = await getLogDetail(logDeps(), principal, params.id);
  return ok({ data: { ...detail, limits: await limitsOf(principal, limits) } });
});
