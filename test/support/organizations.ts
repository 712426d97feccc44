/** An organization of three tenants (owner, admin, member) made through the admin API, for permission group tests. */
import type { Tenant, TestService } from './service';

export interface Organization {
  id: string;
  owner: Tenant;
  admin: Tenant;
  member: Tenant;
}

export async function organizationOf(service: TestService, name = 'acme'): Promise<Organization> {
  const [owner, admin, member] = await Promise.all([
    service.newTenant(`${name}-owner`, { plan: 'enterprise' }),
    service.newTenant(`${name}-admin`),
    service.newTenant(`${name}-member`),
  ]);
  const created = await service.admin('POST', '/api/v1/admin/organizations', {
    name,
    ownerId: owner.userId,
    plan: 'enterprise',
  });
  if (created.status !== 201) throw new Error(`Organization not created: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  for (const [tenant, role] of [
    [admin, 'admin'],
    [member, 'member'],
  ] as const) {
    const added = await service.admin('POST', `/api/v1/admin/organizations/${id}/members`, {
      userId: tenant.userId,
      role,
    });
    if (added.status !== 200) throw new Error(`Member not added: ${JSON.stringify(added.body)}`);
  }
  return { id, owner, admin, member };
}

/** Sets ACCESS_CONTROL_ENABLED for the requests that follow (the service reads it per request). */
export function setAccessControl(enabled: boolean): void {
  process.env.ACCESS_CONTROL_ENABLED = enabled ? 'true' : 'false';
}
