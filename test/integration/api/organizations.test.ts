import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anOrganization } from '../../support/organizations';
import { type Tenant, type TestService, useLocalService } from '../../support/service';
import { changeSettings } from '../../support/settings';

const service = useLocalService();

beforeAll(() => {
  changeSettings({ ORGANIZATIONS_ENABLED: 'true' });
});

afterEach(() => {
  changeSettings({ ORGANIZATIONS_ENABLED: 'true' });
});

interface Team {
  organizationId: string;
  owner: Tenant;
  admin: Tenant;
  member: Tenant;
  outsider: Tenant;
}

/** An organization with an owner, an admin and a member, and a user of no organization. */
async function aTeam(client: TestService): Promise<Team> {
  const [owner, admin, member, outsider] = await Promise.all(
    ['owner', 'admin', 'member', 'outsider'].map((name) => client.newTenant(name)),
  );
  const organizationId = await anOrganization(client, owner, [
    [admin, 'admin'],
    [member, 'member'],
  ]);
  return { organizationId, owner, admin, member, outsider };
}

describe('admin API: organizations', () => {
  it('lists and reads organizations and their members', async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);

    // Act
    const listed = await client.admin('GET', '/api/v1/admin/organizations');
    const read = await client.admin('GET', `/api/v1/admin/organizations/${team.organizationId}`);
    const members = await client.admin('GET', `/api/v1/admin/organizations/${team.organizationId}/members`);

    // Assess
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((organization: { id: string }) => organization.id)).toContain(
      team.organizationId,
    );
    expect(read.body.data).toMatchObject({
      id: team.organizationId,
      name: 'Engines',
      ownerId: team.owner.userId,
    });
    expect(members.body.data).toHaveLength(3);
    expect(members.body.data).toContainEqual({
      organizationId: team.organizationId,
      userId: team.member.userId,
      role: 'member',
    });
  });

  it('answers 404 for an organization that does not exist', async () => {
    const answer = await service.get().admin('GET', '/api/v1/admin/organizations/org_missing/members');
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('NOT_FOUND');
  });

  it("changes a member's role, and refuses to make or unmake the owner", async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);
    const base = `/api/v1/admin/organizations/${team.organizationId}/members`;

    // Act
    const promoted = await client.admin('PATCH', `${base}/${team.member.userId}`, { role: 'admin' });
    const toOwner = await client.admin('PATCH', `${base}/${team.member.userId}`, { role: 'owner' });
    const demoteOwner = await client.admin('PATCH', `${base}/${team.owner.userId}`, { role: 'member' });
    const stranger = await client.admin('PATCH', `${base}/${team.outsider.userId}`, { role: 'admin' });
    const secondOwner = await client.admin('POST', base, { userId: team.outsider.userId, role: 'owner' });

    // Assess
    expect(promoted.status).toBe(200);
    expect(promoted.body.data.role).toBe('admin');
    expect(toOwner.status).toBe(400);
    expect(toOwner.body.details[0].path).toBe('role');
    expect(demoteOwner.status).toBe(400);
    expect(stranger.status).toBe(404);
    expect(secondOwner.status).toBe(400);
    expect(secondOwner.body.details[0].path).toBe('role');
  });

  it('removes a member, who may then join another organization; never the owner', async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);
    const base = `/api/v1/admin/organizations/${team.organizationId}/members`;

    // Act
    const removed = await client.admin('DELETE', `${base}?userId=${team.member.userId}`);
    const owner = await client.admin('DELETE', `${base}?userId=${team.owner.userId}`);
    const other = await client.admin('POST', '/api/v1/admin/organizations', {
      name: 'Elsewhere',
      ownerId: team.member.userId,
    });

    // Assess
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({
      organizationId: team.organizationId,
      userId: team.member.userId,
      role: 'member',
    });
    expect(owner.status).toBe(400);
    expect(other.status).toBe(201);
    const members = await client.admin('GET', base);
    expect(members.body.data.map((member: { userId: string }) => member.userId)).not.toContain(
      team.member.userId,
    );
  });

  it('creates a workspace in an organization for a member, lists it and its members', async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);

    // Act
    const created = await client.admin('POST', '/api/v1/admin/workspaces', {
      name: 'Shared',
      ownerId: team.member.userId,
      organizationId: team.organizationId,
    });
    const notMember = await client.admin('POST', '/api/v1/admin/workspaces', {
      name: 'Stray',
      ownerId: team.outsider.userId,
      organizationId: team.organizationId,
    });
    const workspaces = await client.admin(
      'GET',
      `/api/v1/admin/organizations/${team.organizationId}/workspaces`,
    );
    const members = await client.admin('GET', `/api/v1/admin/workspaces/${created.body.data.id}/members`);

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data.organizationId).toBe(team.organizationId);
    expect(notMember.status).toBe(400);
    expect(notMember.body.details[0].path).toBe('organizationId');
    expect(workspaces.body.data.map((workspace: { id: string }) => workspace.id)).toEqual([
      created.body.data.id,
    ]);
    expect(members.body.data).toEqual([
      { workspaceId: created.body.data.id, userId: team.member.userId, permissions: 'admin' },
    ]);
  });
});

describe('management API: organizations', () => {
  it('shows members their organization, its members and its workspaces', async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);
    const workspace = await team.member.call('POST', '/api/workspaces', {
      name: 'Team space',
      organizationId: team.organizationId,
    });

    // Act
    const mine = await team.member.call('GET', '/api/organizations');
    const read = await team.member.call('GET', `/api/organizations/${team.organizationId}`);
    const members = await team.member.call('GET', `/api/organizations/${team.organizationId}/members`);
    const workspaces = await team.member.call('GET', `/api/organizations/${team.organizationId}/workspaces`);

    // Assess
    expect(workspace.status).toBe(201);
    expect(workspace.body.data).toMatchObject({ organizationId: team.organizationId, permissions: 'admin' });
    expect(mine.body.data).toEqual([expect.objectContaining({ id: team.organizationId, role: 'member' })]);
    expect(read.body.data).toMatchObject({ id: team.organizationId, role: 'member' });
    expect(members.body.data).toHaveLength(3);
    expect(workspaces.body.data.map((item: { id: string }) => item.id)).toEqual([workspace.body.data.id]);
  });

  it('hides an organization from a non-member (404) and its workspaces from creation by one', async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);

    // Act
    const read = await team.outsider.call('GET', `/api/organizations/${team.organizationId}`);
    const create = await team.outsider.call('POST', '/api/workspaces', {
      name: 'Intruder',
      organizationId: team.organizationId,
    });
    const none = await team.outsider.call('GET', '/api/organizations');

    // Assess
    expect(read.status).toBe(404);
    expect(create.status).toBe(404);
    expect(none.body.data).toEqual([]);
  });

  it('lets owners and admins change roles and remove members, and refuses members with 403', async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);
    const base = `/api/organizations/${team.organizationId}/members`;

    // Act
    const byMember = await team.member.call('PATCH', `${base}/${team.admin.userId}`, { role: 'member' });
    const byAdmin = await team.admin.call('PATCH', `${base}/${team.member.userId}`, { role: 'admin' });
    const removeOwner = await team.admin.call('DELETE', `${base}/${team.owner.userId}`);
    const removed = await team.owner.call('DELETE', `${base}/${team.member.userId}`);

    // Assess
    expect(byMember.status).toBe(403);
    expect(byMember.body.error).toContain('admin role');
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.data.role).toBe('admin');
    expect(removeOwner.status).toBe(400);
    expect(removed.status).toBe(200);
    expect((await team.member.call('GET', `/api/organizations/${team.organizationId}`)).status).toBe(404);
  });

  it("gives the owner and admins admin on the organization's workspaces, and members only their own access", async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);
    const created = await team.member.call('POST', '/api/workspaces', {
      name: 'Owned by a member',
      organizationId: team.organizationId,
    });
    const workspaceId = created.body.data.id;
    const other = await client.newTenant('colleague');
    await client.admin('POST', `/api/v1/admin/organizations/${team.organizationId}/members`, {
      userId: other.userId,
      role: 'member',
    });

    // Act
    const byAdmin = await team.admin.call('PUT', `/api/workspaces/${workspaceId}/environment/REGION`, {
      value: 'eu-west-1',
    });
    const byOwner = await team.owner.call('GET', `/api/workspaces/${workspaceId}/members`);
    const byColleague = await other.call('GET', `/api/workspaces/${workspaceId}`);
    const adminList = await team.admin.call('GET', '/api/workspaces');

    // Assess
    expect(byAdmin.status).toBe(201);
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.data).toEqual([{ workspaceId, userId: team.member.userId, permissions: 'admin' }]);
    expect(byColleague.status).toBe(404);
    expect(adminList.body.data).toContainEqual(
      expect.objectContaining({ id: workspaceId, permissions: 'admin' }),
    );
  });

  it('gives an organization admin who is also a read member of a workspace admin there, secret values included', async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);
    const created = await team.member.call('POST', '/api/workspaces', {
      name: 'Owned by a member',
      organizationId: team.organizationId,
    });
    const workspaceId = created.body.data.id;
    await client.admin('POST', `/api/v1/admin/workspaces/${workspaceId}/members`, {
      userId: team.admin.userId,
      permissions: 'read',
    });
    await team.member.call('PUT', `/api/workspaces/${workspaceId}/environment/TOKEN`, { value: 'sk-secret' });

    // Act
    const workspace = await team.admin.call('GET', `/api/workspaces/${workspaceId}`);
    const environment = await team.admin.call('GET', `/api/workspaces/${workspaceId}/environment`);

    // Assess
    expect(workspace.body.data.permissions).toBe('admin');
    expect(environment.body.data).toEqual([expect.objectContaining({ name: 'TOKEN', value: 'sk-secret' })]);
  });

  it("removes a removed member's memberships of the organization's workspaces they do not own", async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);
    const created = await team.owner.call('POST', '/api/workspaces', {
      name: 'Owned by the owner',
      organizationId: team.organizationId,
    });
    const workspaceId = created.body.data.id;
    await client.admin('POST', `/api/v1/admin/workspaces/${workspaceId}/members`, {
      userId: team.member.userId,
      permissions: 'write',
    });
    expect((await team.member.call('GET', `/api/workspaces/${workspaceId}`)).status).toBe(200);

    // Act
    await team.admin.call(
      'DELETE',
      `/api/organizations/${team.organizationId}/members/${team.member.userId}`,
    );

    // Assess
    expect((await team.member.call('GET', `/api/workspaces/${workspaceId}`)).status).toBe(404);
  });
});

describe('ORGANIZATIONS_ENABLED', () => {
  it("refuses the users' organization routes and organization workspaces with 403 when off; the admin API works", async () => {
    // Prepare
    const client = service.get();
    const team = await aTeam(client);
    changeSettings({ ORGANIZATIONS_ENABLED: undefined });

    // Act
    const read = await team.member.call('GET', `/api/organizations/${team.organizationId}`);
    const list = await team.member.call('GET', '/api/organizations');
    const workspace = await team.member.call('POST', '/api/workspaces', {
      name: 'Team space',
      organizationId: team.organizationId,
    });
    const plain = await team.member.call('POST', '/api/workspaces', { name: 'Own space' });
    const admin = await client.admin('GET', `/api/v1/admin/organizations/${team.organizationId}/members`);

    // Assess
    for (const answer of [read, list, workspace]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error).toContain('ORGANIZATIONS_ENABLED');
    }
    expect(plain.status).toBe(201);
    expect(admin.status).toBe(200);
  });

  it('is also read as NEXT_PUBLIC_ORGANIZATIONS_ENABLED', async () => {
    // Prepare
    const team = await aTeam(service.get());
    changeSettings({ ORGANIZATIONS_ENABLED: undefined });
    changeSettings({ NEXT_PUBLIC_ORGANIZATIONS_ENABLED: 'true' });

    // Act
    const read = await team.member.call('GET', `/api/organizations/${team.organizationId}`);
    changeSettings({ NEXT_PUBLIC_ORGANIZATIONS_ENABLED: undefined });

    // Assess
    expect(read.status).toBe(200);
  });
});
