import { listOrganizationWorkspaces } from '../../core/identity/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute('adminListOrganizationWorkspaces', async ({ params }) =>
  ok({ data: await listOrganizationWorkspaces(identityDeps(), params.orgId) }),
);
