import { workspaceRoutes } from '../../catalog/workspace-routes';
import { requireOrganizationRole, requireOrganizationsEnabled } from '../../core/identity/organizations';
import { createWorkspace } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';
import { switchesSetting } from '../settings';

export const handler = httpRoute(workspaceRoutes, 'createWorkspace', async ({ principal, body }) => {
  const deps = identityDeps();
  if (body.organizationId !== undefined) {
    requireOrganizationsEnabled(switchesSetting());
    // Any member may create a workspace in their organization; a non-member sees a 404.
    await requireOrganizationRole(deps, principal, body.organizationId, 'member');
  }
  const workspace = await createWorkspace(deps, principal.user.id, body.name, body.organizationId);
  return created({ data: { ...workspace, permissions: 'admin' } });
});
