import { environmentRoutes } from '../../catalog/environment-routes';
import { setEnvironmentVariable } from '../../core/environment/service';
import { created, ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { environmentDeps } from '../wiring/environment';

export const handler = httpRoute(
  environmentRoutes,
  'putEnvironmentVariable',
  async ({ principal, params, body }) => {
    const result = await setEnvironmentVariable(environmentDeps(), principal, {
      workspaceId: params.workspaceId,
      name: params.name,
      value: body.value,
    });
    return (result.created ? created : ok)({ data: result.variable });
  },
);
