import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoInvitationStore } from '../../../adapters/dynamodb/invitation-store';
import { newId } from '../../../core/ids';
import type { Invitation } from '../../../core/invitations/types';
import { type LocalDynamoDb, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoInvitationStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoInvitationStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
});

afterAll(async () => {
  await dynamo?.stop();
});

const anInvitation = (overrides: Partial<Invitation>): Invitation => ({
  id: newId('inv'),
  email: 'grace@example.com',
  status: 'pending',
  invitedBy: 'usr_owner',
  createdAt: '2026-11-01T12:00:00.000Z',
  expiresAt: '2026-11-08T12:00:00.000Z',
  ...overrides,
});

describe('DynamoInvitationStore', () => {
  it('finds an invitation by id and lists those of an organization, newest first', async () => {
    // Prepare
    const organizationId = newId('org');
    const older = anInvitation({ organizationId, role: 'member' });
    const newer = anInvitation({ organizationId, role: 'admin', createdAt: '2026-11-02T12:00:00.000Z' });
    const elsewhere = anInvitation({ workspaceId: newId('ws'), permissions: 'read' });
    for (const invitation of [older, newer, elsewhere]) await store.create(invitation);

    // Act
    const listed = await store.listForOrganization(organizationId);
    const found = await store.find(older.id);

    // Assess
    expect(listed).toEqual([newer, older]);
    expect(found).toEqual(older);
    expect(await store.listForWorkspace(elsewhere.workspaceId as string)).toEqual([elsewhere]);
    expect(await store.find('inv_missing')).toBeUndefined();
  });

  it('settles a pending invitation once: a second accept or a revoke afterwards changes nothing', async () => {
    // Prepare
    const invitation = anInvitation({ workspaceId: newId('ws'), permissions: 'write' });
    await store.create(invitation);
    const acceptance = {
      status: 'accepted',
      acceptedAt: '2026-11-03T00:00:00.000Z',
      acceptedBy: 'usr_grace',
    } as const;

    // Act
    const first = await store.settle(invitation.id, acceptance);
    const second = await store.settle(invitation.id, { ...acceptance, acceptedBy: 'usr_mallory' });
    const revoke = await store.settle(invitation.id, { status: 'revoked' });

    // Assess
    expect(first).toEqual({ ...invitation, ...acceptance });
    expect(second).toBeUndefined();
    expect(revoke).toBeUndefined();
    expect((await store.find(invitation.id))?.acceptedBy).toBe('usr_grace');
  });

  it('refuses a second invitation with the same id', async () => {
    // Prepare
    const invitation = anInvitation({ organizationId: newId('org'), role: 'member' });
    await store.create(invitation);

    // Act & Assess
    await expect(store.create({ ...invitation, email: 'other@example.com' })).rejects.toThrow();
    expect((await store.find(invitation.id))?.email).toBe('grace@example.com');
  });
});
