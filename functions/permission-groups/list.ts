import { permissionGroupRoutes } from '../../catalog/permission-group-routes';
import { listPermissionGroups } from '../../core/permissions/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionGroupDeps } from '../wiring/permissions';

export const handler = httpRoute(
  permissionGroupRoutes,
  'listPermissionGroups',
  async ({ principal, params }) =>
    ok({ data: await listPermissionGroups(permissionGroupDeps(), principal, params.orgId) }),
);
