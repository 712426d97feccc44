import { permissionGroupRoutes } from '../../catalog/permission-group-routes';
import { updatePermissionGroup } from '../../core/permissions/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionGroupDeps } from '../wiring/permissions';

export const handler = httpRoute(
  permissionGroupRoutes,
  'updatePermissionGroup',
  async ({ principal, params, body }) =>
    ok({
      data: await updatePermissionGroup(permissionGroupDeps(), principal, params.orgId, params.groupId, body),
    }),
);
