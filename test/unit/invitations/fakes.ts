import type {
  IdentityStore,
  OrganizationMembership,
  User,
  WorkspaceMembership,
} from '../../../core/identity/types';
import type { Invitation, InvitationStore } from '../../../core/invitations/types';
import type { EmailMessage } from '../../../core/notifications/messages';
import type { EmailSender } from '../../../core/notifications/types';

/** The identity the invitation use cases touch: users, one organization, one workspace, memberships. */
export class MemoryIdentity {
  readonly users = new Map<string, User>();
  readonly organizationMembers = new Map<string, OrganizationMembership>();
  readonly workspaceMembers = new Map<string, WorkspaceMembership>();

  user(id: string, email: string): User {
    const user: User = { id, email, name: id, plan: 'free', createdAt: '2026-01-01T00:00:00.000Z' };
    this.users.set(id, user);
    return user;
  }

  get store(): IdentityStore {
    return {
      getUser: async (id: string) => this.users.get(id),
      setUserOrganization: async (userId: string, organizationId: string) => {
        const user = this.users.get(userId);
        if (user) user.organizationId = organizationId;
      },
      getOrganization: async (id: string) =>
        id === 'org_1'
          ? { id, name: 'Engines', ownerId: 'usr_owner', plan: 'team', createdAt: '2026-01-01T00:00:00.000Z' }
          : undefined,
      getOrganizationMembership: async (organizationId: string, userId: string) =>
        this.organizationMembers.get(`${organizationId}\n${userId}`),
      putOrganizationMembership: async (membership: OrganizationMembership) => {
        this.organizationMembers.set(`${membership.organizationId}\n${membership.userId}`, membership);
      },
      getWorkspace: async (id: string) =>
        id === 'ws_1'
          ? { id, name: 'Research', ownerId: 'usr_owner', createdAt: '2026-01-01T00:00:00.000Z' }
          : undefined,
      getWorkspaceMembership: async (workspaceId: string, userId: string) =>
        this.workspaceMembers.get(`${workspaceId}\n${userId}`),
      putWorkspaceMembership: async (membership: WorkspaceMembership) => {
        this.workspaceMembers.set(`${membership.workspaceId}\n${membership.userId}`, membership);
      },
    } as unknown as IdentityStore;
  }
}

export class MemoryInvitations implements InvitationStore {
  readonly byId = new Map<string, Invitation>();
  async create(invitation: Invitation) {
    this.byId.set(invitation.id, { ...invitation });
  }
  async find(id: string) {
    const found = this.byId.get(id);
    return found && { ...found };
  }
  async listForOrganization(organizationId: string) {
    return [...this.byId.values()].filter((invitation) => invitation.organizationId === organizationId);
  }
  async listForWorkspace(workspaceId: string) {
    return [...this.byId.values()].filter((invitation) => invitation.workspaceId === workspaceId);
  }
  async settle(id: string, change: Partial<Invitation>) {
    const found = this.byId.get(id);
    if (found?.status !== 'pending') return undefined;
    Object.assign(found, change);
    return { ...found };
  }
}

export class MemoryEmail implements EmailSender {
  readonly sent: EmailMessage[] = [];
  async send(message: EmailMessage) {
    this.sent.push(message);
    return { outcome: { kind: 'answered', status: 200 } } as const;
  }
  /** The token in the last message sent. */
  lastToken(): string {
    const match = /"token": "([^"]+)"/.exec(this.sent.at(-1)?.text ?? '');
    if (!match) throw new Error('No token was sent');
    return match[1];
  }
}
