import { ForbiddenError, NotFoundError } from '../errors';
import type { IdentityStore, OrganizationRole, WorkspaceMembership, WorkspacePermission } from './types';

const rank: Record<WorkspacePermission, number> = { read: 1, write: 2, admin: 3 };
const roleRank: Record<OrganizationRole, number> = { member: 1, admin: 2, owner: 3 };

export function permits(granted: WorkspacePermission, needed: WorkspacePermission): boolean {
  return rank[granted] >= rank[needed];
}

/** Whether an organization role meets a needed one (`owner` meets `admin`, both meet `member`). */
export function roleMeets(granted: OrganizationRole, needed: OrganizationRole): boolean {
  return roleRank[granted] >= roleRank[needed];
}

/** The owner and the admins of an organization administer every workspace that belongs to it. */
export function administersWorkspaces(role: OrganizationRole): boolean {
  return roleMeets(role, 'admin');
}

type AccessStore = Pick<
  IdentityStore,
  'getWorkspaceMembership' | 'getWorkspace' | 'getOrganizationMembership'
>;

/**
 * A user's permission on a workspace: their own membership, raised to `admin` when the workspace
 * belongs to an organization they own or administer. The organization is looked up only when the
 * membership falls short of `needed`, so members pay one read as before.
 */
export async function workspaceAccessOf(
  store: AccessStore,
  userId: string,
  workspaceId: string,
  needed: WorkspacePermission = 'admin',
): Promise<WorkspaceMembership | undefined> {
  const membership = await store.getWorkspaceMembership(workspaceId, userId);
  if (membership && permits(membership.permissions, needed)) return membership;
  const workspace = await store.getWorkspace(workspaceId);
  if (!workspace?.organizationId) return membership;
  const role = await store.getOrganizationMembership(workspace.organizationId, userId);
  if (role && administersWorkspaces(role.role)) {
    return { workspaceId, userId, permissions: 'admin' };
  }
  return membership;
}

/**
 * A non-member gets the same 404 as for a workspace that does not exist, so another tenant's
 * ids cannot be probed; a member with too little permission gets a 403.
 */
export async function requireWorkspaceAccess(
  store: AccessStore,
  userId: string,
  workspaceId: string,
  needed: WorkspacePermission,
  notFoundMessage = 'Workspace not found',
): Promise<WorkspaceMembership> {
  const membership = await workspaceAccessOf(store, userId, workspaceId, needed);
  if (!membership) throw new NotFoundError(notFoundMessage);
  if (!permits(membership.permissions, needed)) {
    throw new ForbiddenError(
      `This needs ${needed} permission on the workspace; you have ${membership.permissions}`,
    );
  }
  return membership;
}
