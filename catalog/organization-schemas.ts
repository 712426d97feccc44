/** Wire schemas of the organization, membership and invitation routes. */
import { z } from 'zod';
import { id, organization, organizationRole, workspacePermission } from './schemas';

export const organizationView = organization
  .extend({ role: organizationRole })
  .meta({ id: 'OrganizationWithRole' });

/** Roles a member can be given after creation: the owner is set once, when the organization is made. */
export const assignableRole = z.enum(['admin', 'member']);

export const organizationMemberParams = z.object({ orgId: id, userId: id });
export const changeOrganizationRoleBody = z.object({ role: assignableRole });
export const removeOrganizationMemberQuery = z.object({ userId: id });

export const invitationStatus = z.enum(['pending', 'accepted', 'revoked']);

export const invitation = z
  .object({
    id,
    email: z.string(),
    organizationId: id.optional(),
    role: assignableRole.optional(),
    workspaceId: id.optional(),
    permissions: workspacePermission.optional(),
    status: invitationStatus,
    invitedBy: id,
    createdAt: z.string(),
    expiresAt: z.string(),
    acceptedAt: z.string().optional(),
  })
  .meta({ id: 'Invitation' });

export const createOrganizationInvitationBody = z.object({
  email: z.email().max(320),
  role: assignableRole.default('member'),
});
export const createWorkspaceInvitationBody = z.object({
  email: z.email().max(320),
  permissions: workspacePermission.default('read'),
});
export const acceptInvitationBody = z.object({ token: z.string().min(1).max(1000) });
export const organizationInvitationParams = z.object({ orgId: id, invitationId: id });
export const workspaceInvitationParams = z.object({ workspaceId: id, invitationId: id });

export const acceptedInvitation = z
  .object({
    invitation,
    organizationMember: z.object({ organizationId: id, userId: id, role: organizationRole }).optional(),
    workspaceMember: z.object({ workspaceId: id, userId: id, permissions: workspacePermission }).optional(),
  })
  .meta({ id: 'AcceptedInvitation' });
