import { afterEach, describe, expect, it } from 'vitest';
import type { IdentityStore } from '../../../core/identity/types';
import { onOwnerChanged, withOwnerChanges } from '../../../core/limits/owner-changes';

/** The writes that change an owner's limits, each answering at once; `failing` makes them throw. */
function limitsWrites(failing = false) {
  const write = async () => {
    if (failing) throw new Error('store unreachable');
    return undefined;
  };
  const store = {
    updateUserLimits: write,
    updateOrganizationLimits: write,
    setUserOrganization: write,
    removeOrganizationMember: write,
    getUser: async (id: string) => ({ id }),
  };
  return store as unknown as IdentityStore;
}

let stopListening: () => void = () => undefined;
afterEach(() => stopListening());

function listen(): string[] {
  const changed: string[] = [];
  stopListening = onOwnerChanged((ownerKey) => changed.push(ownerKey));
  return changed;
}

describe('withOwnerChanges', () => {
  it('tells of each owner whose plan, usage limit or organization a write changed', async () => {
    // Prepare
    const changed = listen();
    const store = withOwnerChanges(limitsWrites());

    // Act
    await store.updateUserLimits('u1', { plan: 'pro' });
    await store.updateOrganizationLimits('o1', { usageLimitUsd: 5 });
    await store.setUserOrganization('u2', 'o1');
    await store.removeOrganizationMember('o1', 'u3');

    // Assess
    expect(changed).toEqual(['user#u1', 'org#o1', 'user#u2', 'user#u3']);
  });

  it('tells of nothing for a write that failed, nor for a read', async () => {
    // Prepare
    const changed = listen();
    const store = withOwnerChanges(limitsWrites(true));

    // Act
    const failed = await store.updateUserLimits('u1', { plan: 'pro' }).catch((error: Error) => error.message);
    await store.getUser('u1');

    // Assess
    expect(failed).toBe('store unreachable');
    expect(changed).toEqual([]);
  });

  it('stops telling a listener once it is removed', async () => {
    // Prepare
    const changed = listen();
    const store = withOwnerChanges(limitsWrites());
    stopListening();

    // Act
    await store.setUserOrganization('u2', 'o1');

    // Assess
    expect(changed).toEqual([]);
  });
});
