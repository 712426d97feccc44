import { usageRoutes } from '../../catalog/usage-routes';
import { limitOwnerOf, usageLimitsOf } from '../../core/limits/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { limitsDeps } from '../wiring/limits';

/** The interface's usage limits object, with no data wrapper (as the public client reads it). */
export const handler = httpRoute(usageRoutes, 'getUsageLimits', async ({ principal, limits }) => {
  const deps = limitsDeps();
  const owner = limits.owner ?? (await limitOwnerOf(deps, principal.user));
  return ok(await usageLimitsOf(deps, owner, 'api'));
});
