import { logRoutes } from '../../catalog/log-routes';
import type { Principal } from '../../core/identity/service';
import { getExecutionDetail } from '../../core/logs/service';
import type { RequestLimits } from '../http/limits';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { limitsOf } from '../wiring/limits';
import { logDeps } from '../wiring/logs';

/** The interface's execution detail has no data wrapper. */
export async function executionDetailAnswer(input: {
  principal: Principal;
  params: { executionId: string };
  limits: RequestLimits;
}) {
  const detail = await getExecutionDetail(logDeps(), input.principal, input.params.executionId);
  return ok({ ...detail, limits: await limitsOf(input.principal, input.limits) });
}

export const handler = httpRoute(logRoutes, 'getLogExecution', executionDetailAnswer);
