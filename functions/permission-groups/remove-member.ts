import { permissionGroupRoutes } from '../../catalog/permission-group-routes';
import { removePermissionGroupMember } from '../../core/permissions/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionGroupDeps } from '../wiring/permissions';

export const handler = httpRoute(
  permissionGroupRoutes,
  'removePermissionGroupMember',
  async ({ principal, params }) =>
    ok({
      data: await removePermissionGroupMember(
        permissionGroupDeps(),
        principal,
        params.orgId,
        params.groupId,
        params.userId,
      ),
    }),
);
