import { permissionGroupRoutes } from '../../catalog/permission-group-routes';
import { getPermissionGroup } from '../../core/permissions/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionGroupDeps } from '../wiring/permissions';

export const handler = httpRoute(permissionGroupRoutes, 'getPermissionGroup', async ({ principal, params }) =>
  ok({ data: await getPermissionGroup(permissionGroupDeps(), principal, params.orgId, params.groupId) }),
);
