import { permissionGroupRoutes } from '../../catalog/permission-group-routes';
import { addPermissionGroupMember } from '../../core/permissions/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionGroupDeps } from '../wiring/permissions';

export const handler = httpRoute(
  permissionGroupRoutes,
  'addPermissionGroupMember',
  async ({ principal, params, body }) =>
    ok({
      data: await addPermissionGroupMember(
        permissionGroupDeps(),
        principal,
        params.orgId,
        params.groupId,
        body.userId,
      ),
    }),
);
