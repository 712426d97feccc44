import { listOrganizationMembers } from '../../core/identity/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute('adminListOrganizationMembers', async ({ params }) =>
  ok({ data: await listOrganizationMembers(identityDeps(), params.orgId) }),
);
