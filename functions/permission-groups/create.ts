import { permissionGroupRoutes } from '../../catalog/permission-group-routes';
import { createPermissionGroup } from '../../core/permissions/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionGroupDeps } from '../wiring/permissions';

export const handler = httpRoute(
  permissionGroupRoutes,
  'createPermissionGroup',
  async ({ principal, params, body }) =>
    created({ data: await createPermissionGroup(permissionGroupDeps(), principal, params.orgId, body) }),
);
