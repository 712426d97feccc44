/** In-memory stand-ins for the environment tests: the store, memberships, and a local-key cipher. */
import { randomBytes } from 'node:crypto';
import { LocalKeyWrapper } from '../../../adapters/kms/local-key-wrapper';
import { createEnvelopeCipher } from '../../../core/environment/envelope';
import type { EnvironmentDeps } from '../../../core/environment/service';
import type { EnvironmentStore, EnvironmentVariableRecord } from '../../../core/environment/types';
import type { Principal } from '../../../core/identity/service';
import type { IdentityStore, WorkspaceMembership, WorkspacePermission } from '../../../core/identity/types';

export class MemoryEnvironmentStore implements EnvironmentStore {
  readonly items = new Map<string, EnvironmentVariableRecord>();
  private key = (workspaceId: string, name: string) => `${workspaceId}\n${name}`;

  async putVariable(record: EnvironmentVariableRecord) {
    this.items.set(this.key(record.workspaceId, record.name), structuredClone(record));
  }
  async getVariable(workspaceId: string, name: string) {
    return structuredClone(this.items.get(this.key(workspaceId, name)));
  }
  async listVariables(workspaceId: string) {
    return [...this.items.values()]
      .filter((record) => record.workspaceId === workspaceId)
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((record) => structuredClone(record));
  }
  async countVariables(workspaceId: string) {
    return (await this.listVariables(workspaceId)).length;
  }
  async deleteVariable(workspaceId: string, name: string) {
    const record = this.items.get(this.key(workspaceId, name));
    this.items.delete(this.key(workspaceId, name));
    return record;
  }
}

export function principal(userId: string): Principal {
  return {
    user: { id: userId, email: `${userId}@example.com`, name: userId, plan: 'free', createdAt: '' },
    apiKeyId: `key_${userId}`,
  };
}

export function memberships(
  entries: [workspaceId: string, userId: string, WorkspacePermission][],
): IdentityStore {
  const byKey = new Map<string, WorkspaceMembership>(
    entries.map(([workspaceId, userId, permissions]) => [
      `${workspaceId}\n${userId}`,
      { workspaceId, userId, permissions },
    ]),
  );
  return {
    getWorkspaceMembership: async (workspaceId: string, userId: string) =>
      byKey.get(`${workspaceId}\n${userId}`),
    // Workspaces of no organization: access is the membership alone.
    getWorkspace: async () => undefined,
  } as unknown as IdentityStore;
}

export function environmentFixture(entries: [string, string, WorkspacePermission][]) {
  const store = new MemoryEnvironmentStore();
  const deps: EnvironmentDeps = {
    identity: memberships(entries),
    environment: store,
    cipher: createEnvelopeCipher(new LocalKeyWrapper(randomBytes(32))),
    now: () => new Date('2030-01-02T03:04:05.000Z'),
  };
  return { store, deps };
}
