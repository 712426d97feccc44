import { ForbiddenError, NotFoundError } from '../errors';
import type { IdentityStore, WorkspaceMembership, WorkspacePermission } from './types';

const rank: Record<WorkspacePermission, number> = { read: 1, write: 2, admin: 3 };

export function permits(granted: WorkspacePermission, needed: WorkspacePermission): boolean {
  return rank[granted] >= rank[needed];
}

/**
 * A non-member gets the same 404 as for a workspace that does not exist, so another tenant's
 * ids cannot be probed; a member with too little permission gets a 403.
 */
export async function requireWorkspaceAccess(
  store: IdentityStore,
  userId: string,
  workspaceId: string,
  needed: WorkspacePermission,
  notFoundMessage = 'Workspace not found',
): Promise<WorkspaceMembership> {
  const membership = await store.getWorkspaceMembership(workspaceId, userId);
  if (!membership) throw new NotFoundError(notFoundMessage);
  if (!permits(membership.permissions, needed)) {
    throw new ForbiddenError(
      `This needs ${needed} permission on the workspace; you have ${membership.permissions}`,
    );
  }
  return membership;
}
