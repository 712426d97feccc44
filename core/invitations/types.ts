/** Invitations into an organization or a workspace, and the ports they use. */
import type { OrganizationRole, WorkspacePermission } from '../identity/types';

export type InvitationStatus = 'pending' | 'accepted' | 'revoked';

/** Into an organization (with `organizationId` and `role`) or a workspace (`workspaceId`, `permissions`). */
export interface Invitation {
  id: string;
  /** Lowercased; only the user with this address may accept. */
  email: string;
  organizationId?: string;
  role?: Exclude<OrganizationRole, 'owner'>;
  workspaceId?: string;
  permissions?: WorkspacePermission;
  status: InvitationStatus;
  /** The user who invited. */
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  acceptedAt?: string;
  /** The user who accepted. */
  acceptedBy?: string;
}

/** Port. Keys and Queries only: an invitation by id, and those of one organization or workspace. */
export interface InvitationStore {
  create(invitation: Invitation): Promise<void>;
  find(invitationId: string): Promise<Invitation | undefined>;
  /** Newest first. */
  listForOrganization(organizationId: string): Promise<Invitation[]>;
  listForWorkspace(workspaceId: string): Promise<Invitation[]>;
  /**
   * Moves a pending invitation to `accepted` or `revoked`; the invitation after the change, or
   * undefined when it was not pending any more (so a token is used once).
   */
  settle(
    invitationId: string,
    change: { status: 'accepted'; acceptedAt: string; acceptedBy: string } | { status: 'revoked' },
  ): Promise<Invitation | undefined>;
}

/**
 * Port: whether a user's permission group forbids them to invite (the permission groups'
 * "disable invitations" setting). Without permission groups nobody is forbidden.
 */
export interface InvitationPolicy {
  invitationsDisabledFor(userId: string, organizationId: string | undefined): Promise<boolean>;
}

export const allowAllInvitations: InvitationPolicy = {
  invitationsDisabledFor: async () => false,
};
