import { permissionGroupRoutes } from '../../catalog/permission-group-routes';
import { deletePermissionGroup } from '../../core/permissions/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionGroupDeps } from '../wiring/permissions';

export const handler = httpRoute(
  permissionGroupRoutes,
  'deletePermissionGroup',
  async ({ principal, params }) =>
    ok({ data: await deletePermissionGroup(permissionGroupDeps(), principal, params.orgId, params.groupId) }),
);
