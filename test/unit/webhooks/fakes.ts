/** In-memory stand-ins for the webhook tests: the store, workflows, users with memberships, a cipher. */
import { randomBytes } from 'node:crypto';
import { LocalKeyWrapper } from '../../../adapters/kms/local-key-wrapper';
import { createEnvelopeCipher } from '../../../core/environment/envelope';
import type { Principal } from '../../../core/identity/service';
import type {
  IdentityStore,
  User,
  WorkspaceMembership,
  WorkspacePermission,
} from '../../../core/identity/types';
import type { WebhookDeps } from '../../../core/webhooks/service';
import type { WebhookRecord, WebhookStore } from '../../../core/webhooks/types';
import type { WorkflowRecord } from '../../../core/workflows/types';

/** Behaves as the DynamoDB store does: one record per path, put only if absent or over `replacingId`. */
export class MemoryWebhookStore implements WebhookStore {
  readonly byPath = new Map<string, WebhookRecord>();

  async createWebhook(record: WebhookRecord, options: { replacingId?: string } = {}) {
    const holder = this.byPath.get(record.path);
    if (holder && holder.id !== options.replacingId) return false;
    this.byPath.set(record.path, structuredClone(record));
    return true;
  }
  async getWebhookByPath(path: string) {
    return structuredClone(this.byPath.get(path));
  }
  async listWebhooks(workflowId: string) {
    return [...this.byPath.values()]
      .filter((record) => record.workflowId === workflowId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((record) => structuredClone(record));
  }
  async deleteWebhook(workflowId: string, webhookId: string) {
    const found = [...this.byPath.values()].find(
      (record) => record.workflowId === workflowId && record.id === webhookId,
    );
    if (found) this.byPath.delete(found.path);
    return found;
  }
}

export function userOf(userId: string): User {
  return { id: userId, email: `${userId}@example.com`, name: userId, plan: 'free', createdAt: '' };
}

export function principal(userId: string): Principal {
  return { user: userOf(userId), apiKeyId: `key_${userId}` };
}

/** Users and their workspace memberships; a user removed here is gone from the identity store. */
export class People {
  readonly users = new Map<string, User>();
  readonly memberships = new Map<string, WorkspaceMembership>();

  member(workspaceId: string, userId: string, permissions: WorkspacePermission): this {
    this.users.set(userId, userOf(userId));
    this.memberships.set(`${workspaceId}\n${userId}`, { workspaceId, userId, permissions });
    return this;
  }

  get store(): IdentityStore {
    return {
      getUser: async (userId: string) => this.users.get(userId),
      getWorkspaceMembership: async (workspaceId: string, userId: string) =>
        this.memberships.get(`${workspaceId}\n${userId}`),
      // Workspaces of no organization: access is the membership alone.
      getWorkspace: async () => undefined,
    } as unknown as IdentityStore;
  }
}

export class MemoryWorkflows {
  readonly workflows = new Map<string, WorkflowRecord>();

  add(id: string, workspaceId: string): this {
    this.workflows.set(id, {
      id,
      workspaceId,
      folderId: null,
      name: 'Flow',
      description: '',
      state: { blocks: {}, edges: [], loops: {}, parallels: {} },
      stateHash: 'hash',
      isDeployed: true,
      deployedVersion: 1,
      revision: 1,
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-01T00:00:00.000Z',
    });
    return this;
  }

  async getWorkflow(workflowId: string) {
    return this.workflows.get(workflowId);
  }
}

/** Deps whose clock is the (fake) system clock, so tests move time with vi.setSystemTime. */
export function webhookFixture() {
  const webhooks = new MemoryWebhookStore();
  const workflows = new MemoryWorkflows().add('wf_1', 'ws_1').add('wf_2', 'ws_1').add('wf_other', 'ws_2');
  const people = new People()
    .member('ws_1', 'usr_writer', 'write')
    .member('ws_1', 'usr_reader', 'read')
    .member('ws_2', 'usr_stranger', 'admin');
  const deps: WebhookDeps = {
    identity: people.store,
    workflows,
    webhooks,
    cipher: createEnvelopeCipher(new LocalKeyWrapper(randomBytes(32))),
    now: () => new Date(),
  };
  return { deps, webhooks, workflows, people };
}
