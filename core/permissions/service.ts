/**
 * Permission group use cases: managing groups and their members (organization owners and admins),
 * the access policy a user's runs and saves are checked against, and whether a user may invite.
 */
import { NotFoundError, ValidationError } from '../errors';
import { requireOrganizationRole } from '../identity/organizations';
import type { Principal } from '../identity/service';
import type { IdentityStore, OrganizationMembership, User } from '../identity/types';
import { newId } from '../ids';
import type {
  AccessPolicy,
  PermissionGroup,
  PermissionGroupStore,
  PermissionGroupView,
  PlatformSwitches,
} from './types';

/** Organization roles are read through this; the identity store's adapter has it. */
export interface OrganizationRoles {
  getOrganizationMembership(
    organizationId: string,
    userId: string,
  ): Promise<OrganizationMembership | undefined>;
}

export interface PermissionGroupDeps {
  groups: PermissionGroupStore;
  identity: Pick<IdentityStore, 'getUser'> & OrganizationRoles;
  /** ACCESS_CONTROL_ENABLED (core/config/switches.ts): off, the routes answer 404 and nothing is enforced. */
  accessControlEnabled: boolean;
  now: () => Date;
}

/** What a group is created with; switches left out are off, lists left out (or null) restrict nothing. */
export interface PermissionGroupInput extends Partial<PlatformSwitches> {
  name: string;
  allowedModelProviders?: string[] | null;
  allowedBlocks?: string[] | null;
}

export type PermissionGroupPatch = Partial<PermissionGroupInput>;

const switchNames = [
  'hideKnowledgeBase',
  'disableMcpTools',
  'disableCustomTools',
  'disableInvitations',
] as const;

export const accessControlOffMessage =
  'Permission groups are not enabled on this service: an operator turns them on with ACCESS_CONTROL_ENABLED=true';

/**
 * Only the organization's owner and admins manage its groups. Another organization's groups, or
 * any with access control off, are answered as not found, so nothing tells that they exist.
 */
async function requireManager(deps: PermissionGroupDeps, principal: Principal, organizationId: string) {
  if (!deps.accessControlEnabled) throw new NotFoundError(accessControlOffMessage);
  await requireOrganizationRole({ store: deps.identity }, principal, organizationId, 'admin');
}

function groupNotFound(groupId: string): NotFoundError {
  return new NotFoundError(`Permission group ${groupId} not found`);
}

async function requireGroup(deps: PermissionGroupDeps, organizationId: string, groupId: string) {
  const group = await deps.groups.getGroup(organizationId, groupId);
  if (!group) throw groupNotFound(groupId);
  return group;
}

export async function createPermissionGroup(
  deps: PermissionGroupDeps,
  principal: Principal,
  organizationId: string,
  input: PermissionGroupInput,
): Promise<PermissionGroupView> {
  await requireManager(deps, principal, organizationId);
  const now = deps.now().toISOString();
  const group: PermissionGroup = {
    id: newId('pg'),
    organizationId,
    name: input.name,
    allowedModelProviders: input.allowedModelProviders ?? null,
    allowedBlocks: input.allowedBlocks ?? null,
    hideKnowledgeBase: input.hideKnowledgeBase ?? false,
    disableMcpTools: input.disableMcpTools ?? false,
    disableCustomTools: input.disableCustomTools ?? false,
    disableInvitations: input.disableInvitations ?? false,
    createdAt: now,
    updatedAt: now,
  };
  await deps.groups.createGroup(group);
  return { ...group, members: [] };
}

export async function listPermissionGroups(
  deps: PermissionGroupDeps,
  principal: Principal,
  organizationId: string,
): Promise<PermissionGroupView[]> {
  await requireManager(deps, principal, organizationId);
  return deps.groups.listGroups(organizationId);
}

export async function getPermissionGroup(
  deps: PermissionGroupDeps,
  principal: Principal,
  organizationId: string,
  groupId: string,
): Promise<PermissionGroupView> {
  await requireManager(deps, principal, organizationId);
  return viewOf(deps, await requireGroup(deps, organizationId, groupId));
}

/** The members given replace the group's; `null` lifts a list restriction. */
export async function updatePermissionGroup(
  deps: PermissionGroupDeps,
  principal: Principal,
  organizationId: string,
  groupId: string,
  patch: PermissionGroupPatch,
): Promise<PermissionGroupView> {
  await requireManager(deps, principal, organizationId);
  const group = await requireGroup(deps, organizationId, groupId);
  const changed: PermissionGroup = {
    ...group,
    ...(patch.name === undefined ? {} : { name: patch.name }),
    ...(patch.allowedModelProviders === undefined
      ? {}
      : { allowedModelProviders: patch.allowedModelProviders }),
    ...(patch.allowedBlocks === undefined ? {} : { allowedBlocks: patch.allowedBlocks }),
    updatedAt: deps.now().toISOString(),
  };
  for (const name of switchNames) if (patch[name] !== undefined) changed[name] = patch[name];
  const updated = await deps.groups.updateGroup(changed);
  if (!updated) throw groupNotFound(groupId);
  return viewOf(deps, updated);
}

export async function deletePermissionGroup(
  deps: PermissionGroupDeps,
  principal: Principal,
  organizationId: string,
  groupId: string,
): Promise<PermissionGroup> {
  await requireManager(deps, principal, organizationId);
  const deleted = await deps.groups.deleteGroup(organizationId, groupId);
  if (!deleted) throw groupNotFound(groupId);
  return deleted;
}

/** Only members of the organization can be put in its groups, and each in one group at most. */
export async function addPermissionGroupMember(
  deps: PermissionGroupDeps,
  principal: Principal,
  organizationId: string,
  groupId: string,
  userId: string,
): Promise<PermissionGroupView> {
  await requireManager(deps, principal, organizationId);
  const group = await requireGroup(deps, organizationId, groupId);
  const [user, membership] = await Promise.all([
    deps.identity.getUser(userId),
    deps.identity.getOrganizationMembership(organizationId, userId),
  ]);
  if (!user || user.organizationId !== organizationId || !membership) {
    throw new ValidationError(`User ${userId} is not a member of organization ${organizationId}`, [
      { path: 'userId', message: 'Not a member of this organization' },
    ]);
  }
  await deps.groups.addMember({ organizationId, groupId, userId, addedAt: deps.now().toISOString() });
  return viewOf(deps, group);
}

export async function removePermissionGroupMember(
  deps: PermissionGroupDeps,
  principal: Principal,
  organizationId: string,
  groupId: string,
  userId: string,
): Promise<PermissionGroupView> {
  await requireManager(deps, principal, organizationId);
  const group = await requireGroup(deps, organizationId, groupId);
  const removed = await deps.groups.removeMember(organizationId, groupId, userId);
  if (!removed) throw new NotFoundError(`User ${userId} is not a member of permission group ${groupId}`);
  return viewOf(deps, group);
}

async function viewOf(deps: PermissionGroupDeps, group: PermissionGroup): Promise<PermissionGroupView> {
  const members = await deps.groups.listMembers(group.organizationId, group.id);
  return { ...group, members: members.map((member) => member.userId) };
}

// Enforcement

export type PolicyDeps = Pick<PermissionGroupDeps, 'groups' | 'accessControlEnabled'>;

/** The group a user is in within their organization, if any. */
export async function groupOfUser(
  deps: PolicyDeps,
  userId: string,
  organizationId: string,
): Promise<PermissionGroup | undefined> {
  if (!deps.accessControlEnabled) return undefined;
  const membership = await deps.groups.findMembership(organizationId, userId);
  // A membership whose group was deleted half-way restricts nothing.
  return membership && (await deps.groups.getGroup(organizationId, membership.groupId));
}

/**
 * The policy a user's runs and saves are checked against: their group's restrictions, or none
 * (full access) for a user in no group, in no organization, or with access control off. A user in
 * no organization costs no storage call.
 */
export async function accessPolicyFor(
  deps: PolicyDeps,
  user: Pick<User, 'id' | 'organizationId'>,
): Promise<AccessPolicy | undefined> {
  if (!deps.accessControlEnabled || !user.organizationId) return undefined;
  const group = await groupOfUser(deps, user.id, user.organizationId);
  return group && policyOf(group);
}

export function policyOf(group: PermissionGroup): AccessPolicy {
  return {
    groupId: group.id,
    groupName: group.name,
    ...(group.allowedModelProviders ? { allowedModelProviders: group.allowedModelProviders } : {}),
    ...(group.allowedBlocks ? { allowedBlocks: group.allowedBlocks } : {}),
    ...(group.disableMcpTools ? { disableMcpTools: true } : {}),
    ...(group.disableCustomTools ? { disableCustomTools: true } : {}),
  };
}

/**
 * Whether the user may not send invitations into the organization: invitations are off for
 * everyone (DISABLE_INVITATIONS), or the user's permission group turns them off. For the
 * invitation routes to call before they invite.
 */
export async function invitationsDisabledFor(
  deps: PolicyDeps & { invitationsDisabled: boolean },
  userId: string,
  organizationId: string,
): Promise<boolean> {
  if (deps.invitationsDisabled) return true;
  const group = await groupOfUser(deps, userId, organizationId);
  return group?.disableInvitations === true;
}
