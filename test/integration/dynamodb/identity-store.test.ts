import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DynamoIdentityStore } from '../../../adapters/dynamodb/identity-store';
import { resetClients } from '../../../adapters/aws/client-options';
import { ConflictError } from '../../../core/errors';
import { newId } from '../../../core/ids';
import type {
  ApiKeyRecord,
  Organization,
  OrganizationMembership,
  User,
  Workspace,
  WorkspaceMembership,
} from '../../../core/identity/types';
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

const aUser = (overrides: Partial<User> = {}): User => ({
  id: newId('usr'),
  email: `${newId('mail')}@example.com`,
  name: 'Ada Lovelace',
  plan: 'free',
  createdAt: '2025-01-02T03:04:05.000Z',
  ...overrides,
});

const anApiKey = (userId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: newId('key'),
  userId,
  name: 'CI',
  prefix: 'sk-abc',
  hash: newId('hash'),
  createdAt: '2025-01-02T03:04:05.000Z',
  ...overrides,
});

const aWorkspace = (ownerId: string): Workspace => ({
  id: newId('ws'),
  name: 'Research',
  ownerId,
  createdAt: '2025-01-02T03:04:05.000Z',
});

const anOrganization = (ownerId: string): Organization => ({
  id: newId('org'),
  name: 'Analytical Engines Ltd',
  ownerId,
  plan: 'team',
  createdAt: '2025-01-02T03:04:05.000Z',
});

test('createUser stores the user and getUser returns it as a plain domain object', async () => {
  // Prepare
  const user = aUser();

  // Act
  await store.createUser(user);
  const found = await store.getUser(user.id);

  // Assess
  expect(found).toEqual(user);
});

test('getUser of an unknown id returns undefined', async () => {
  // Act
  const found = await store.getUser(newId('usr'));

  // Assess
  expect(found).toBeUndefined();
});

test('createUser with an e-mail taken in another case fails with ConflictError and leaves the first user untouched', async () => {
  // Prepare
  const first = aUser({ email: 'Grace.Hopper@Example.com' });
  await store.createUser(first);
  const second = aUser({ email: 'grace.hopper@EXAMPLE.COM', name: 'Impostor' });

  // Act
  const attempt = store.createUser(second);

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  await expect(attempt).rejects.toThrow(/A user with e-mail .* exists/);
  expect(await store.getUser(first.id)).toEqual(first);
  expect(await store.getUser(second.id)).toBeUndefined();
  expect((await store.findUserByEmail('GRACE.HOPPER@example.com'))?.id).toBe(first.id);
});

test('createUser with an id that exists fails with ConflictError and frees the new e-mail again', async () => {
  // Prepare
  const first = aUser();
  await store.createUser(first);
  const sameId = aUser({ id: first.id });

  // Act
  const attempt = store.createUser(sameId);

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  expect(await store.getUser(first.id)).toEqual(first);
  expect(await store.findUserByEmail(sameId.email)).toBeUndefined();
});

test('createUser retried after its e-mail claim was written completes the user', async () => {
  // Prepare
  const user = aUser();
  await dynamo.client.send(
    new PutCommand({
      TableName: dynamo.entitiesTable,
      Item: { pk: `EMAIL#${user.email.toLowerCase()}`, sk: 'EMAIL', userId: user.id },
    }),
  );

  // Act
  await store.createUser(user);

  // Assess
  expect(await store.getUser(user.id)).toEqual(user);
});

test('putApiKey stores the key so that findApiKeyByHash and listApiKeys return it', async () => {
  // Prepare
  const user = aUser();
  const first = anApiKey(user.id, { createdAt: '2025-01-01T00:00:00.000Z' });
  const second = anApiKey(user.id, { name: 'Laptop' });
  const someoneElses = anApiKey(newId('usr'));

  // Act
  await store.putApiKey(first);
  await store.putApiKey(second);
  await store.putApiKey(someoneElses);

  // Assess
  expect(await store.findApiKeyByHash(first.hash)).toEqual(first);
  expect(await store.findApiKeyByHash('not-a-stored-hash')).toBeUndefined();
  const listed = await store.listApiKeys(user.id);
  expect(listed.map((key) => key.id).sort()).toEqual([first.id, second.id].sort());
  expect(listed.find((key) => key.id === second.id)).toEqual(second);
});

test('putApiKey with a hash that belongs to another key fails with ConflictError', async () => {
  // Prepare
  const existing = anApiKey(newId('usr'));
  await store.putApiKey(existing);

  // Act
  const attempt = store.putApiKey(anApiKey(newId('usr'), { hash: existing.hash }));

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  expect(await store.findApiKeyByHash(existing.hash)).toEqual(existing);
});

test('deleteApiKey removes the key and returns it', async () => {
  // Prepare
  const userId = newId('usr');
  const key = anApiKey(userId);
  await store.putApiKey(key);

  // Act
  const deleted = await store.deleteApiKey(userId, key.id);

  // Assess
  expect(deleted).toEqual(key);
  expect(await store.findApiKeyByHash(key.hash)).toBeUndefined();
  expect(await store.listApiKeys(userId)).toEqual([]);
});

test("deleteApiKey of another user's key id returns undefined and deletes nothing", async () => {
  // Prepare
  const owner = newId('usr');
  const key = anApiKey(owner);
  await store.putApiKey(key);

  // Act
  const deleted = await store.deleteApiKey(newId('usr'), key.id);

  // Assess
  expect(deleted).toBeUndefined();
  expect(await store.findApiKeyByHash(key.hash)).toEqual(key);
  expect(await store.listApiKeys(owner)).toEqual([key]);
});

test('createWorkspace stores the workspace and its owner as admin member', async () => {
  // Prepare
  const ownerId = newId('usr');
  const workspace = aWorkspace(ownerId);
  const owner: WorkspaceMembership = { workspaceId: workspace.id, userId: ownerId, permissions: 'admin' };

  // Act
  await store.createWorkspace(workspace, owner);

  // Assess
  expect(await store.getWorkspace(workspace.id)).toEqual(workspace);
  expect(await store.getWorkspaceMembership(workspace.id, ownerId)).toEqual(owner);
  expect(await store.listWorkspaceMembershipsOfUser(ownerId)).toEqual([owner]);
  expect(await store.listWorkspaceMembers(workspace.id)).toEqual([owner]);
});

test('createWorkspace with an id that another workspace has fails with ConflictError', async () => {
  // Prepare
  const workspace = aWorkspace(newId('usr'));
  await store.createWorkspace(workspace, {
    workspaceId: workspace.id,
    userId: workspace.ownerId,
    permissions: 'admin',
  });
  const intruder = { ...aWorkspace(newId('usr')), id: workspace.id };

  // Act
  const attempt = store.createWorkspace(intruder, {
    workspaceId: workspace.id,
    userId: intruder.ownerId,
    permissions: 'admin',
  });

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  expect(await store.getWorkspace(workspace.id)).toEqual(workspace);
  expect(await store.getWorkspaceMembership(workspace.id, intruder.ownerId)).toBeUndefined();
});

test('createWorkspace retried with the same workspace completes without error', async () => {
  // Prepare
  const workspace = aWorkspace(newId('usr'));
  const owner: WorkspaceMembership = {
    workspaceId: workspace.id,
    userId: workspace.ownerId,
    permissions: 'admin',
  };
  await store.createWorkspace(workspace, owner);

  // Act
  await store.createWorkspace(workspace, owner);

  // Assess
  expect(await store.listWorkspaceMembers(workspace.id)).toEqual([owner]);
});

test('putWorkspaceMembership stores, replaces and getWorkspaceMembership reads a membership', async () => {
  // Prepare
  const workspaceId = newId('ws');
  const userId = newId('usr');
  await store.putWorkspaceMembership({ workspaceId, userId, permissions: 'read' });

  // Act
  await store.putWorkspaceMembership({ workspaceId, userId, permissions: 'write' });

  // Assess
  expect(await store.getWorkspaceMembership(workspaceId, userId)).toEqual({
    workspaceId,
    userId,
    permissions: 'write',
  });
  expect(await store.getWorkspaceMembership(workspaceId, newId('usr'))).toBeUndefined();
});

test('listWorkspaceMembershipsOfUser returns every workspace of the user and no one else', async () => {
  // Prepare
  const userId = newId('usr');
  const memberships: WorkspaceMembership[] = [
    { workspaceId: newId('ws'), userId, permissions: 'read' },
    { workspaceId: newId('ws'), userId, permissions: 'admin' },
  ];
  for (const membership of memberships) await store.putWorkspaceMembership(membership);
  await store.putWorkspaceMembership({
    workspaceId: memberships[0].workspaceId,
    userId: newId('usr'),
    permissions: 'read',
  });
  await store.putApiKey(anApiKey(userId));
  await store.putOrganizationMembership({ organizationId: newId('org'), userId, role: 'member' });

  // Act
  const listed = await store.listWorkspaceMembershipsOfUser(userId);

  // Assess
  const byWorkspace = (a: WorkspaceMembership, b: WorkspaceMembership) =>
    a.workspaceId.localeCompare(b.workspaceId);
  expect(listed.sort(byWorkspace)).toEqual([...memberships].sort(byWorkspace));
});

test('deleteWorkspaceMembership removes the membership and returns it; a second delete returns undefined', async () => {
  // Prepare
  const membership: WorkspaceMembership = {
    workspaceId: newId('ws'),
    userId: newId('usr'),
    permissions: 'write',
  };
  await store.putWorkspaceMembership(membership);

  // Act
  const deleted = await store.deleteWorkspaceMembership(membership.workspaceId, membership.userId);
  const deletedAgain = await store.deleteWorkspaceMembership(membership.workspaceId, membership.userId);

  // Assess
  expect(deleted).toEqual(membership);
  expect(deletedAgain).toBeUndefined();
  expect(await store.getWorkspaceMembership(membership.workspaceId, membership.userId)).toBeUndefined();
  expect(await store.listWorkspaceMembershipsOfUser(membership.userId)).toEqual([]);
});

test('createOrganization stores the organization and its owner; putOrganizationMembership adds members', async () => {
  // Prepare
  const ownerId = newId('usr');
  const memberId = newId('usr');
  const organization = anOrganization(ownerId);
  const owner: OrganizationMembership = { organizationId: organization.id, userId: ownerId, role: 'owner' };
  const member: OrganizationMembership = {
    organizationId: organization.id,
    userId: memberId,
    role: 'member',
  };

  // Act
  await store.createOrganization(organization, owner);
  await store.putOrganizationMembership(member);

  // Assess
  expect(await store.getOrganization(organization.id)).toEqual(organization);
  expect(await store.getOrganizationMembership(organization.id, ownerId)).toEqual(owner);
  expect(await store.getOrganizationMembership(organization.id, memberId)).toEqual(member);
  expect(await store.listOrganizationMembershipsOfUser(memberId)).toEqual([member]);
  expect(await store.getOrganization(newId('org'))).toBeUndefined();
});

test('createOrganization with an id that another organization has fails with ConflictError', async () => {
  // Prepare
  const organization = anOrganization(newId('usr'));
  await store.createOrganization(organization, {
    organizationId: organization.id,
    userId: organization.ownerId,
    role: 'owner',
  });
  const intruder = { ...anOrganization(newId('usr')), id: organization.id };

  // Act
  const attempt = store.createOrganization(intruder, {
    organizationId: organization.id,
    userId: intruder.ownerId,
    role: 'owner',
  });

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  expect(await store.getOrganization(organization.id)).toEqual(organization);
  expect(await store.getOrganizationMembership(organization.id, intruder.ownerId)).toBeUndefined();
});

test('the stored user item carries its key attributes, which are stripped on read', async () => {
  // Prepare
  const user = aUser();

  // Act
  await store.createUser(user);

  // Assess
  const raw = await dynamo.rawItem(dynamo.entitiesTable, `USER#${user.id}`, 'USER');
  expect(raw?.pk).toEqual({ S: `USER#${user.id}` });
  expect(Object.keys((await store.getUser(user.id)) ?? {})).not.toContain('pk');
});

test('fromEnv uses ENTITIES_TABLE and the shared client, and names the variable when it is missing', async () => {
  // Prepare
  const saved = { table: process.env.ENTITIES_TABLE, endpoint: process.env.DYNAMODB_ENDPOINT };
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.ENTITIES_TABLE = dynamo.entitiesTable;
  resetClients();
  const user = aUser();

  try {
    // Act
    await DynamoIdentityStore.fromEnv().createUser(user);
    delete process.env.ENTITIES_TABLE;
    const missing = () => DynamoIdentityStore.fromEnv();

    // Assess
    expect(await store.getUser(user.id)).toEqual(user);
    expect(missing).toThrow(/ENTITIES_TABLE/);
  } finally {
    for (const [name, value] of [
      ['ENTITIES_TABLE', saved.table],
      ['DYNAMODB_ENDPOINT', saved.endpoint],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetClients();
  }
});
