import { logRoutes } from '../../catalog/log-routes';
import { getExecutionDetail } from '../../core/logs/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { limitsOf } from '../wiring/limits';
import { logDeps } from '../wiring/logs';

/** The interface's execution detail has no data wrapper. */
export const handler = httpRoute(logRoutes, 'getLogExecution', async ({ principal, params, limits }) => {
  const detail = await getExecutionDetail(logDeps(), principal, params.executionId);
  return ok({ ...detail, limits: await limitsOf(principal, limits) });
});
