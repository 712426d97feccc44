/** Organizations made through the admin API for the tests of the local service. */
import type { Tenant, TestService } from './service';

/** An organization owned by `owner` with the given members; answers its id. */
export async function anOrganization(
  client: TestService,
  owner: Tenant,
  members: readonly (readonly [Tenant, 'admin' | 'member'])[] = [],
): Promise<string> {
  const organization = await client.admin('POST', '/api/v1/admin/organizations', {
    name: 'Engines',
    ownerId: owner.userId,
  });
  if (organization.status !== 201) throw new Error(`No organization: ${JSON.stringify(organization.body)}`);
  const organizationId: string = organization.body.data.id;
  for (const [tenant, role] of members) {
    await client.admin('POST', `/api/v1/admin/organizations/${organizationId}/members`, {
      userId: tenant.userId,
      role,
    });
  }
  return organizationId;
}
