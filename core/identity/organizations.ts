/**
 * Organization use cases beyond creation: reading them, their members and workspaces, changing a
 * member's role and removing a member. The operator (admin API) acts without a principal; a user
 * (management API) acts through their role in the organization.
 */
import type { Switches } from '../config/switches';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { roleMeets } from './access';
import type { IdentityDeps, Principal } from './service';
import type {
  IdentityStore,
  Organization,
  OrganizationMembership,
  OrganizationRole,
  Workspace,
} from './types';

export type OrganizationView = Organization & { role: OrganizationRole };

/**
 * The users' side of organizations (reading them, managing members, organization workspaces,
 * invitations) is there only with ORGANIZATIONS_ENABLED (or ACCESS_CONTROL_ENABLED). The admin
 * API keeps its organization operations either way: it is how an operator manages membership.
 */
export function requireOrganizationsEnabled(switches: Pick<Switches, 'organizationsEnabled'>): void {
  if (!switches.organizationsEnabled) {
    throw new ForbiddenError(
      'Organizations are turned off on this deployment: the operator sets ORGANIZATIONS_ENABLED=true to use them',
    );
  }
}

/**
 * The caller's membership of the organization: a non-member gets the same 404 as for an
 * organization that does not exist (ids cannot be probed), a member below `needed` a 403.
 */
export async function requireOrganizationRole(
  deps: { store: Pick<IdentityStore, 'getOrganizationMembership'> },
  principal: Principal,
  organizationId: string,
  needed: OrganizationRole,
): Promise<OrganizationMembership> {
  const membership = await deps.store.getOrganizationMembership(organizationId, principal.user.id);
  if (!membership) throw new NotFoundError(`Organization ${organizationId} not found`);
  if (!roleMeets(membership.role, needed)) {
    const who = needed === 'owner' ? 'owner' : 'owner and admins';
    throw new ForbiddenError(
      `Only the ${who} of organization ${organizationId} may do this (it needs the ${needed} role); you are a ${membership.role}`,
    );
  }
  return membership;
}

export async function requireOrganization(deps: IdentityDeps, organizationId: string): Promise<Organization> {
  const organization = await deps.store.getOrganization(organizationId);
  if (!organization) throw new NotFoundError(`Organization ${organizationId} not found`);
  return organization;
}

/** The organization the caller belongs to (a user belongs to one at most), with their role. */
export async function listMyOrganizations(
  deps: IdentityDeps,
  principal: Principal,
): Promise<OrganizationView[]> {
  const organizationId = principal.user.organizationId;
  if (!organizationId) return [];
  const [organization, membership] = await Promise.all([
    deps.store.getOrganization(organizationId),
    deps.store.getOrganizationMembership(organizationId, principal.user.id),
  ]);
  return organization && membership ? [{ ...organization, role: membership.role }] : [];
}

export async function listOrganizationMembers(
  deps: IdentityDeps,
  organizationId: string,
): Promise<OrganizationMembership[]> {
  await requireOrganization(deps, organizationId);
  return deps.store.listOrganizationMembers(organizationId);
}

export async function listOrganizationWorkspaces(
  deps: IdentityDeps,
  organizationId: string,
): Promise<Workspace[]> {
  await requireOrganization(deps, organizationId);
  return deps.store.listOrganizationWorkspaces(organizationId);
}

/** The organization and `userId`'s membership of it; a 404 naming which one is missing. */
async function requireMember(
  deps: IdentityDeps,
  organizationId: string,
  userId: string,
): Promise<{ organization: Organization; membership: OrganizationMembership }> {
  const organization = await requireOrganization(deps, organizationId);
  const membership = await deps.store.getOrganizationMembership(organizationId, userId);
  if (!membership)
    throw new NotFoundError(`User ${userId} is not a member of organization ${organizationId}`);
  return { organization, membership };
}

/**
 * Sets a member's role to `member` or `admin`. There is one owner, set when the organization is
 * created: the owner's role does not change and nobody else becomes owner this way.
 */
export async function changeOrganizationRole(
  deps: IdentityDeps,
  input: { organizationId: string; userId: string; role: OrganizationRole },
): Promise<OrganizationMembership> {
  const { organization, membership: current } = await requireMember(deps, input.organizationId, input.userId);
  if (organization.ownerId === input.userId || input.role === 'owner') {
    throw new ValidationError('The organization has one owner, set when it was created', [
      { path: 'role', message: 'The owner stays owner and no other member becomes owner' },
    ]);
  }
  const changed = { ...current, role: input.role };
  await deps.store.putOrganizationMembership(changed);
  return changed;
}

/**
 * Removes a member (never the owner) and their memberships of the organization's workspaces,
 * except of those they own: an owner keeps admin on their workspace.
 */
export async function removeOrganizationMember(
  deps: IdentityDeps,
  organizationId: string,
  userId: string,
): Promise<OrganizationMembership> {
  const { organization, membership } = await requireMember(deps, organizationId, userId);
  if (organization.ownerId === userId) {
    throw new ValidationError('The organization owner cannot be removed', [
      { path: 'userId', message: 'This user owns the organization' },
    ]);
  }
  // Workspaces first: a retried call after a failure still finds the membership and finishes.
  for (const workspace of await deps.store.listOrganizationWorkspaces(organizationId)) {
    if (workspace.ownerId !== userId) await deps.store.deleteWorkspaceMembership(workspace.id, userId);
  }
  return (await deps.store.removeOrganizationMember(organizationId, userId)) ?? membership;
}
