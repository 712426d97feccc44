/** Organizations made through the admin API for the tests of the local service. */
import type { ApiClient, Tenant } from '../../support/api-client';
import { changeSettings } from './settings';

/** An organization owned by `owner` with the given members; answers its id. */
export async function anOrganization(
  client: ApiClient,
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

export interface Organization {
  id: string;
  owner: Tenant;
  admin: Tenant;
  member: Tenant;
}

/** An organization of three tenants: its owner, an admin and a plain member. */
export async function organizationOf(service: ApiClient, name = 'acme'): Promise<Organization> {
  const owner = await service.newTenant(`${name}-owner`, { plan: 'enterprise' });
  const created = await service.admin('POST', '/api/v1/admin/organizations', {
    name,
    ownerId: owner.userId,
    plan: 'enterprise',
  });
  if (created.status !== 201) throw new Error(`Organization not created: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  const [admin, member] = await Promise.all([
    memberOf(service, id, 'admin', `${name}-admin`),
    memberOf(service, id, 'member', `${name}-member`),
  ]);
  return { id, owner, admin, member };
}

/** A new tenant, added to the organization with the role. */
export async function memberOf(
  service: ApiClient,
  organizationId: string,
  role: 'admin' | 'member',
  name: string,
): Promise<Tenant> {
  const tenant = await service.newTenant(name);
  const added = await service.admin('POST', `/api/v1/admin/organizations/${organizationId}/members`, {
    userId: tenant.userId,
    role,
  });
  if (added.status !== 200) throw new Error(`Member not added: ${JSON.stringify(added.body)}`);
  return tenant;
}

/** A group of the organization, made by its owner, with these users in it; answers its id. */
export async function groupOf(
  organization: Organization,
  settings: Record<string, unknown>,
  members: Tenant[],
): Promise<string> {
  const path = `/api/organizations/${organization.id}/permission-groups`;
  const created = await organization.owner.call('POST', path, settings);
  if (created.status !== 201) throw new Error(`Group not created: ${JSON.stringify(created.body)}`);
  for (const tenant of members) {
    const added = await organization.owner.call('POST', `${path}/${created.body.data.id}/members`, {
      userId: tenant.userId,
    });
    if (added.status !== 200) throw new Error(`Group member not added: ${JSON.stringify(added.body)}`);
  }
  return created.body.data.id;
}

/** Sets ACCESS_CONTROL_ENABLED for the requests that follow (the service reads it per request). */
export function setAccessControl(enabled: boolean): void {
  changeSettings({ ACCESS_CONTROL_ENABLED: enabled ? 'true' : 'false' });
}
