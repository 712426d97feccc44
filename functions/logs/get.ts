import { logRoutes } from '../../catalog/log-routes';
import type { Principal } from '../../core/identity/service';
import { getLogDetail } from '../../core/logs/service';
import type { RequestLimits } from '../http/limits';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { limitsOf } from '../wiring/limits';
import { logDeps } from '../wiring/logs';

/** One log entry, as GET /api/v1/logs/{id} and a delivery's links.log (./get-link.ts) answer it. */
export async function logDetailAnswer(input: {
  principal: Principal;
  params: { id: string };
  limits: RequestLimits;
}) {
  const detail = await getLogDetail(logDeps(), input.principal, input.params.id);
  return ok({ data: { ...detail, limits: await limitsOf(input.principal, input.limits) } });
}

export const handler = httpRoute(logRoutes, 'getLog', logDetailAnswer);
