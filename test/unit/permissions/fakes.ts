/** An in-memory PermissionGroupStore and organization roles, for the permission group service's tests. */
import { ConflictError } from '../../../core/errors';
import type { OrganizationMembership, User } from '../../../core/identity/types';
import type { PermissionGroupDeps } from '../../../core/permissions/service';
import type {
  PermissionGroup,
  PermissionGroupMembership,
  PermissionGroupStore,
} from '../../../core/permissions/types';

export class MemoryPermissionGroupStore implements PermissionGroupStore {
  readonly groups = new Map<string, PermissionGroup>();
  readonly members = new Map<string, PermissionGroupMembership>();
  /** Every read of a user's membership, to show when none happens. */
  readonly membershipReads: string[] = [];

  async createGroup(group: PermissionGroup) {
    if (this.groups.has(group.id)) throw new ConflictError('exists');
    this.groups.set(group.id, structuredClone(group));
  }
  async getGroup(organizationId: string, groupId: string) {
    const group = this.groups.get(groupId);
    return group?.organizationId === organizationId ? structuredClone(group) : undefined;
  }
  async updateGroup(group: PermissionGroup) {
    if (!this.groups.has(group.id)) return undefined;
    this.groups.set(group.id, structuredClone(group));
    return group;
  }
  async deleteGroup(organizationId: string, groupId: string) {
    const group = await this.getGroup(organizationId, groupId);
    if (!group) return undefined;
    for (const [key, member] of this.members) if (member.groupId === groupId) this.members.delete(key);
    this.groups.delete(groupId);
    return group;
  }
  async listGroups(organizationId: string) {
    return [...this.groups.values()]
      .filter((group) => group.organizationId === organizationId)
      .map((group) => ({
        ...group,
        members: [...this.members.values()].filter((m) => m.groupId === group.id).map((m) => m.userId),
      }));
  }
  async listMembers(organizationId: string, groupId: string) {
    return [...this.members.values()].filter(
      (m) => m.organizationId === organizationId && m.groupId === groupId,
    );
  }
  async addMember(membership: PermissionGroupMembership) {
    const key = `${membership.organizationId}/${membership.userId}`;
    const existing = this.members.get(key);
    if (existing && existing.groupId !== membership.groupId) throw new ConflictError('in another group');
    if (!existing) this.members.set(key, membership);
  }
  async removeMember(organizationId: string, groupId: string, userId: string) {
    const key = `${organizationId}/${userId}`;
    const existing = this.members.get(key);
    if (existing?.groupId !== groupId) return undefined;
    this.members.delete(key);
    return existing;
  }
  async findMembership(organizationId: string, userId: string) {
    this.membershipReads.push(userId);
    return this.members.get(`${organizationId}/${userId}`);
  }
}

export function userOf(id: string, organizationId?: string): User {
  return {
    id,
    email: `${id}@example.com`,
    name: id,
    plan: 'enterprise',
    createdAt: '2030-01-01T00:00:00.000Z',
    ...(organizationId ? { organizationId } : {}),
  };
}

/** Deps over the fake store, with the given users and organization memberships. */
export function depsOf(
  users: User[],
  memberships: OrganizationMembership[],
  accessControlEnabled = true,
): PermissionGroupDeps & { groups: MemoryPermissionGroupStore } {
  return {
    groups: new MemoryPermissionGroupStore(),
    identity: {
      getUser: async (userId) => users.find((user) => user.id === userId),
      getOrganizationMembership: async (organizationId, userId) =>
        memberships.find((m) => m.organizationId === organizationId && m.userId === userId),
    },
    accessControlEnabled,
    now: () => new Date('2030-01-01T00:00:00.000Z'),
  };
}
