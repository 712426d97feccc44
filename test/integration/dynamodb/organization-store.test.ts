import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoIdentityStore } from '../../../adapters/dynamodb/identity-store';
import { newId } from '../../../core/ids';
import type { Organization, User, Workspace } from '../../../core/identity/types';
import { type LocalDynamoDb, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoIdentityStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoIdentityStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
});

afterAll(async () => {
  await dynamo?.stop();
});

const createdAt = '2026-01-02T03:04:05.000Z';

async function aUser(): Promise<User> {
  const user: User = {
    id: newId('usr'),
    email: `${newId('m')}@example.com`,
    name: 'Ada',
    plan: 'free',
    createdAt,
  };
  await store.createUser(user);
  return user;
}

async function anOrganization(owner: User): Promise<Organization> {
  const organization: Organization = {
    id: newId('org'),
    name: 'Engines',
    ownerId: owner.id,
    plan: 'team',
    createdAt,
  };
  await store.setUserOrganization(owner.id, organization.id);
  await store.createOrganization(organization, {
    organizationId: organization.id,
    userId: owner.id,
    role: 'owner',
  });
  return organization;
}

async function join(organization: Organization, user: User, role: 'admin' | 'member'): Promise<void> {
  await store.setUserOrganization(user.id, organization.id);
  await store.putOrganizationMembership({ organizationId: organization.id, userId: user.id, role });
}

describe('DynamoIdentityStore organizations', () => {
  it('lists the members of an organization and of a workspace by their partitions', async () => {
    // Prepare
    const owner = await aUser();
    const member = await aUser();
    const organization = await anOrganization(owner);
    await join(organization, member, 'member');
    const workspace: Workspace = {
      id: newId('ws'),
      name: 'Research',
      ownerId: owner.id,
      organizationId: organization.id,
      createdAt,
    };
    await store.createWorkspace(workspace, {
      workspaceId: workspace.id,
      userId: owner.id,
      permissions: 'admin',
    });
    await store.putWorkspaceMembership({ workspaceId: workspace.id, userId: member.id, permissions: 'read' });

    // Act
    const organizationMembers = await store.listOrganizationMembers(organization.id);
    const workspaceMembers = await store.listWorkspaceMembers(workspace.id);

    // Assess
    expect(organizationMembers).toEqual(
      expect.arrayContaining([
        { organizationId: organization.id, userId: owner.id, role: 'owner' },
        { organizationId: organization.id, userId: member.id, role: 'member' },
      ]),
    );
    expect(organizationMembers).toHaveLength(2);
    expect(workspaceMembers).toHaveLength(2);
    expect(workspaceMembers).toContainEqual({
      workspaceId: workspace.id,
      userId: member.id,
      permissions: 'read',
    });
  });

  it("lists an organization's workspaces and no others", async () => {
    // Prepare
    const owner = await aUser();
    const organization = await anOrganization(owner);
    const inside: Workspace = {
      id: newId('ws'),
      name: 'Inside',
      ownerId: owner.id,
      organizationId: organization.id,
      createdAt,
    };
    const outside: Workspace = { id: newId('ws'), name: 'Outside', ownerId: owner.id, createdAt };
    for (const workspace of [inside, outside]) {
      await store.createWorkspace(workspace, {
        workspaceId: workspace.id,
        userId: owner.id,
        permissions: 'admin',
      });
    }

    // Act
    const listed = await store.listOrganizationWorkspaces(organization.id);

    // Assess
    expect(listed).toEqual([inside]);
    expect(await store.getWorkspace(inside.id)).toEqual(inside);
  });

  it('lists every organization created through it', async () => {
    // Prepare
    const first = await anOrganization(await aUser());
    const second = await anOrganization(await aUser());

    // Act
    const listed = await store.listOrganizations();

    // Assess
    expect(listed.map((organization) => organization.id)).toEqual(
      expect.arrayContaining([first.id, second.id]),
    );
    expect(listed.find((organization) => organization.id === first.id)).toEqual(first);
  });

  it("removes a member: the membership goes and the user's organization is cleared", async () => {
    // Prepare
    const owner = await aUser();
    const member = await aUser();
    const organization = await anOrganization(owner);
    await join(organization, member, 'admin');

    // Act
    const removed = await store.removeOrganizationMember(organization.id, member.id);
    const again = await store.removeOrganizationMember(organization.id, member.id);

    // Assess
    expect(removed).toEqual({ organizationId: organization.id, userId: member.id, role: 'admin' });
    expect(again).toBeUndefined();
    expect(await store.getOrganizationMembership(organization.id, member.id)).toBeUndefined();
    expect((await store.getUser(member.id))?.organizationId).toBeUndefined();
    // Free to join another organization now.
    await expect(store.setUserOrganization(member.id, newId('org'))).resolves.toBeUndefined();
  });

  it("leaves the user's other organization alone when removing a stale membership", async () => {
    // Prepare
    const owner = await aUser();
    const member = await aUser();
    const organization = await anOrganization(owner);
    const elsewhere = newId('org');
    await store.setUserOrganization(member.id, elsewhere);

    // Act
    const removed = await store.removeOrganizationMember(organization.id, member.id);

    // Assess
    expect(removed).toBeUndefined();
    expect((await store.getUser(member.id))?.organizationId).toBe(elsewhere);
  });
});
