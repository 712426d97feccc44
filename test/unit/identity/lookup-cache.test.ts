import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../support/clock';
import { withLookupCache } from '../../../core/identity/lookup-cache';
import type { ApiKeyRecord, IdentityStore, WorkspaceMembership } from '../../../core/identity/types';

const key: ApiKeyRecord = {
  id: 'key_1',
  userId: 'usr_1',
  name: 'ci',
  prefix: 'svc_abcd',
  hash: 'hash-1',
  createdAt: '2026-01-01T00:00:00.000Z',
};
const member: WorkspaceMembership = { workspaceId: 'ws_1', userId: 'usr_1', permissions: 'write' };

/** The records another process sees and changes, with a count of the reads that reach them. */
function sharedStore() {
  const keys = new Map([[key.hash, key]]);
  const memberships = new Map([[`${member.workspaceId}#${member.userId}`, member]]);
  const reads = { keys: 0, memberships: 0 };
  const store = {
    async findApiKeyByHash(hash: string) {
      reads.keys += 1;
      return keys.get(hash);
    },
    async deleteApiKey(_userId: string, keyId: string) {
      const found = [...keys.values()].find((record) => record.id === keyId);
      if (found) keys.delete(found.hash);
      return found;
    },
    async getWorkspaceMembership(workspaceId: string, userId: string) {
      reads.memberships += 1;
      return memberships.get(`${workspaceId}#${userId}`);
    },
    async deleteWorkspaceMembership(workspaceId: string, userId: string) {
      const found = memberships.get(`${workspaceId}#${userId}`);
      memberships.delete(`${workspaceId}#${userId}`);
      return found;
    },
    async getUser(userId: string) {
      return { id: userId };
    },
  };
  return { store: store as unknown as IdentityStore, keys, memberships, reads };
}

describe('withLookupCache', () => {
  it('reads a key once within the bound, and again after it', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const cached = withLookupCache(shared.store, { ttlInMs: 10_000, nowInMs: clock.nowInMs });

    // Act
    await cached.findApiKeyByHash(key.hash);
    clock.advance(9_999);
    await cached.findApiKeyByHash(key.hash);
    const readsWithin = shared.reads.keys;
    clock.advance(1);
    await cached.findApiKeyByHash(key.hash);

    // Assess
    expect(readsWithin).toBe(1);
    expect(shared.reads.keys).toBe(2);
  });

  it('stops accepting a key revoked in another process once the bound has passed, not before', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const cached = withLookupCache(shared.store, { ttlInMs: 10_000, nowInMs: clock.nowInMs });
    await cached.findApiKeyByHash(key.hash);

    // Act
    shared.keys.delete(key.hash);
    clock.advance(5_000);
    const stale = await cached.findApiKeyByHash(key.hash);
    clock.advance(5_000);
    const after = await cached.findApiKeyByHash(key.hash);

    // Assess
    expect(stale).toEqual(key);
    expect(after).toBeUndefined();
  });

  it('forgets a key revoked through this process at once', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const cached = withLookupCache(shared.store, { ttlInMs: 10_000, nowInMs: clock.nowInMs });
    await cached.findApiKeyByHash(key.hash);

    // Act
    await cached.deleteApiKey(key.userId, key.id);
    const after = await cached.findApiKeyByHash(key.hash);

    // Assess
    expect(after).toBeUndefined();
  });

  it('keeps no miss: a key created elsewhere works at once', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const cached = withLookupCache(shared.store, { ttlInMs: 10_000, nowInMs: clock.nowInMs });
    const created = { ...key, id: 'key_2', hash: 'hash-2' };

    // Act
    const before = await cached.findApiKeyByHash(created.hash);
    shared.keys.set(created.hash, created);
    const after = await cached.findApiKeyByHash(created.hash);

    // Assess
    expect(before).toBeUndefined();
    expect(after).toEqual(created);
  });

  it('keeps a membership within the bound and forgets one removed through this process at once', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const cached = withLookupCache(shared.store, { ttlInMs: 10_000, nowInMs: clock.nowInMs });

    // Act
    await cached.getWorkspaceMembership('ws_1', 'usr_1');
    await cached.getWorkspaceMembership('ws_1', 'usr_1');
    const readsWithin = shared.reads.memberships;
    await cached.deleteWorkspaceMembership('ws_1', 'usr_1');
    const after = await cached.getWorkspaceMembership('ws_1', 'usr_1');

    // Assess
    expect(readsWithin).toBe(1);
    expect(after).toBeUndefined();
  });

  it('keeps nothing with a bound of 0, and passes every other call to the store', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const cached = withLookupCache(shared.store, { ttlInMs: 0, nowInMs: clock.nowInMs });

    // Act
    await cached.findApiKeyByHash(key.hash);
    await cached.findApiKeyByHash(key.hash);
    const user = await cached.getUser('usr_9');

    // Assess
    expect(shared.reads.keys).toBe(2);
    expect(user).toEqual({ id: 'usr_9' });
  });
});
