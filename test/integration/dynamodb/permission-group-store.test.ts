import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoPermissionGroupStore } from '../../../adapters/dynamodb/permission-group-store';
import { ConflictError } from '../../../core/errors';
import { newId } from '../../../core/ids';
import type { PermissionGroup } from '../../../core/permissions/types';
import { type LocalDynamoDb, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoPermissionGroupStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoPermissionGroupStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
});

afterAll(async () => {
  await dynamo?.stop();
});

const aGroup = (overrides: Partial<PermissionGroup> = {}): PermissionGroup => ({
  id: newId('pg'),
  organizationId: newId('org'),
  name: 'Contractors',
  allowedModelProviders: ['openai'],
  allowedBlocks: null,
  hideKnowledgeBase: false,
  disableMcpTools: true,
  disableCustomTools: false,
  disableInvitations: true,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
  ...overrides,
});

const member = (group: PermissionGroup, userId: string) => ({
  organizationId: group.organizationId,
  groupId: group.id,
  userId,
  addedAt: '2030-01-02T00:00:00.000Z',
});

describe('DynamoPermissionGroupStore', () => {
  it('stores a group and reads it back as it was given, in its organization only', async () => {
    // Prepare
    const group = aGroup();

    // Act
    await store.createGroup(group);

    // Assess
    expect(await store.getGroup(group.organizationId, group.id)).toEqual(group);
    expect(await store.getGroup(newId('org'), group.id)).toBeUndefined();
  });

  it('refuses a second group with the same id', async () => {
    const group = aGroup();
    await store.createGroup(group);
    await expect(store.createGroup({ ...group, name: 'Other' })).rejects.toBeInstanceOf(ConflictError);
    expect((await store.getGroup(group.organizationId, group.id))?.name).toBe('Contractors');
  });

  it("lists an organization's groups oldest first, each with its members, and no other organization's", async () => {
    // Prepare
    const organizationId = newId('org');
    const later = aGroup({ organizationId, name: 'Later', createdAt: '2030-02-01T00:00:00.000Z' });
    const earlier = aGroup({ organizationId, name: 'Earlier' });
    await store.createGroup(later);
    await store.createGroup(earlier);
    await store.createGroup(aGroup());
    await store.addMember(member(later, 'usr_a'));
    await store.addMember(member(later, 'usr_b'));
    await store.addMember(member(earlier, 'usr_c'));

    // Act
    const groups = await store.listGroups(organizationId);

    // Assess
    expect(groups.map((group) => group.name)).toEqual(['Earlier', 'Later']);
    expect(groups[0].members).toEqual(['usr_c']);
    expect(groups[1].members.sort()).toEqual(['usr_a', 'usr_b']);
    expect((await store.listMembers(organizationId, later.id)).map((m) => m.userId).sort()).toEqual([
      'usr_a',
      'usr_b',
    ]);
  });

  it('replaces a group on update, and answers undefined for one that does not exist', async () => {
    const group = aGroup();
    await store.createGroup(group);
    const changed = { ...group, name: 'Renamed', allowedBlocks: ['function'], disableMcpTools: false };
    expect(await store.updateGroup(changed)).toEqual(changed);
    expect(await store.getGroup(group.organizationId, group.id)).toEqual(changed);
    expect(await store.updateGroup(aGroup())).toBeUndefined();
  });

  it('keeps a user in one group of an organization: adding again is a no-op, another group a conflict', async () => {
    // Prepare
    const organizationId = newId('org');
    const first = aGroup({ organizationId });
    const second = aGroup({ organizationId });
    await store.createGroup(first);
    await store.createGroup(second);
    await store.addMember(member(first, 'usr_one'));

    // Act
    await store.addMember(member(first, 'usr_one'));
    const conflict = store.addMember(member(second, 'usr_one'));

    // Assess
    await expect(conflict).rejects.toThrow(/is in permission group .* already/);
    expect(await store.findMembership(organizationId, 'usr_one')).toEqual(member(first, 'usr_one'));
    expect(await store.listMembers(organizationId, second.id)).toEqual([]);
  });

  it('removes a member only from the group they are in', async () => {
    const group = aGroup();
    await store.createGroup(group);
    await store.addMember(member(group, 'usr_x'));
    expect(await store.removeMember(group.organizationId, 'pg_other', 'usr_x')).toBeUndefined();
    expect(await store.removeMember(group.organizationId, group.id, 'usr_x')).toEqual(member(group, 'usr_x'));
    expect(await store.findMembership(group.organizationId, 'usr_x')).toBeUndefined();
    expect(await store.removeMember(group.organizationId, group.id, 'usr_x')).toBeUndefined();
  });

  it('deletes a group with its memberships, so its members can join another group', async () => {
    // Prepare
    const organizationId = newId('org');
    const group = aGroup({ organizationId });
    const next = aGroup({ organizationId });
    await store.createGroup(group);
    await store.createGroup(next);
    await store.addMember(member(group, 'usr_y'));

    // Act
    const deleted = await store.deleteGroup(organizationId, group.id);

    // Assess
    expect(deleted).toEqual(group);
    expect(await store.getGroup(organizationId, group.id)).toBeUndefined();
    expect(await store.findMembership(organizationId, 'usr_y')).toBeUndefined();
    await store.addMember(member(next, 'usr_y'));
    expect((await store.findMembership(organizationId, 'usr_y'))?.groupId).toBe(next.id);
    expect(await store.deleteGroup(organizationId, group.id)).toBeUndefined();
  });

  it('lets a membership left behind by a group deleted half-way give way to a new group', async () => {
    // Prepare: the membership of a group that no longer exists
    const organizationId = newId('org');
    const gone = aGroup({ organizationId });
    const group = aGroup({ organizationId });
    await store.createGroup(group);
    await store.addMember(member(gone, 'usr_z'));

    // Act
    await store.addMember(member(group, 'usr_z'));

    // Assess
    expect((await store.findMembership(organizationId, 'usr_z'))?.groupId).toBe(group.id);
  });

  it('keeps its items in the partition of the organization, without index keys', async () => {
    const group = aGroup();
    await store.createGroup(group);
    await store.addMember(member(group, 'usr_raw'));
    const raw = await dynamo.rawItem(dynamo.entitiesTable, `ORG#${group.organizationId}`, 'PGMEMBER#usr_raw');
    expect(raw?.groupId).toEqual({ S: group.id });
    expect(raw?.gsi1pk).toBeUndefined();
  });
});
