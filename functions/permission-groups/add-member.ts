import { addPermissionGroupMember } from '../../core/permissions/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionGroupDeps } from '../wiring/permissions';

export const handler = httpRoute('addPermissionGroupMember', async ({ principal, params, body }) =>
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
