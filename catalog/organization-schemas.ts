/** Wire schemas of the organization, membership and invitation routes. */
import * as z from './zod';
import { id, organization, organizationRole, workspacePermission } from './schemas';

export const organizationView = z
  .extend(organization, { role: organizationRole })
  .register(z.globalRegistry, { id: 'OrganizationWithRole' });

/** Roles a member can be given after creation: the owner is set once, when the organization is made. */
export const assignableRole = z.enum(['admin', 'member']);

export const organizationMemberParams = z.object({ orgId: id, userId: id });
export const changeOrganizationRoleBody = z.strictObject({ role: assignableRole });
export const removeOrganizationMemberQuery = z.object({ userId: id });

export const invitationStatus = z.enum(['pending', 'accepted', 'revoked']);

export const invitation = z
  .object({
    id,
    email: z.string(),
    organizationId: z.optional(id),
    role: z.optional(assignableRole),
    workspaceId: z.optional(id),
    permissions: z.optional(workspacePermission),
    status: invitationStatus,
    invitedBy: id,
    createdAt: z.string(),
    expiresAt: z.string(),
    acceptedAt: z.optional(z.string()),
  })
  .register(z.globalRegistry, { id: 'Invitation' });

export const createOrganizationInvitationBody = z.strictObject({
  email: z.email().check(z.maxLength(320)),
  role: z._default(assignableRole, 'member'),
});
export const createWorkspaceInvitationBody = z.strictObject({
  email: z.email().check(z.maxLength(320)),
  permissions: z._default(workspacePermission, 'read'),
});
export const acceptInvitationBody = z.strictObject({
  token: z.string().check(z.minLength(1), z.maxLength(1000)),
});
export const organizationInvitationParams = z.object({ orgId: id, invitationId: id });
export const workspaceInvitationParams = z.object({ workspaceId: id, invitationId: id });

export const acceptedInvitation = z
  .object({
    invitation,
    organizationMember: z.optional(z.object({ organizationId: id, userId: id, role: organizationRole })),
    workspaceMember: z.optional(z.object({ workspaceId: id, userId: id, permissions: workspacePermission })),
  })
  .register(z.globalRegistry, { id: 'AcceptedInvitation' });
