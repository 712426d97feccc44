/** Identity use cases: users, API keys, workspaces, organizations and their members. */
import { NotFoundError, UnauthorizedError, ValidationError } from '../errors';
import { newId } from '../ids';
import { administersWorkspaces, requireWorkspaceAccess, workspaceAccessOf } from './access';
import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-keys';
import { requireOrganization } from './organizations';
import type {
  ApiKeyRecord,
  IdentityStore,
  LimitsPatch,
  Organization,
  OrganizationMembership,
  OrganizationRole,
  Plan,
  User,
  Workspace,
  WorkspaceMembership,
  WorkspacePermission,
} from './types';

export interface Principal {
  user: User;
  apiKeyId: string;
}

export interface IdentityDeps {
  store: IdentityStore;
  now: () => Date;
}

export type ApiKeyView = Omit<ApiKeyRecord, 'hash'>;

export function apiKeyView({ hash: _hash, ...rest }: ApiKeyRecord): ApiKeyView {
  return rest;
}

export async function createUser(
  deps: IdentityDeps,
  input: { email: string; name: string; plan?: Plan; usageLimitUsd?: number },
): Promise<User> {
  const user: User = {
    id: newId('usr'),
    email: input.email.trim().toLowerCase(),
    name: input.name,
    plan: input.plan ?? 'free',
    ...(input.usageLimitUsd === undefined ? {} : { usageLimitUsd: input.usageLimitUsd }),
    createdAt: deps.now().toISOString(),
  };
  await deps.store.createUser(user);
  return user;
}

/** An operator's change of a user's plan or usage limit; it applies from the next request. */
export async function updateUserLimits(
  deps: IdentityDeps,
  userId: string,
  patch: LimitsPatch,
): Promise<User> {
  const user = await deps.store.updateUserLimits(userId, patch);
  if (!user) throw new NotFoundError(`User ${userId} not found`);
  return user;
}

export async function updateOrganizationLimits(
  deps: IdentityDeps,
  organizationId: string,
  patch: LimitsPatch,
): Promise<Organization> {
  const organization = await deps.store.updateOrganizationLimits(organizationId, patch);
  if (!organization) throw new NotFoundError(`Organization ${organizationId} not found`);
  return organization;
}

async function requireUser(deps: IdentityDeps, userId: string): Promise<User> {
  const user = await deps.store.getUser(userId);
  if (!user) throw new NotFoundError(`User ${userId} not found`);
  return user;
}

export async function issueApiKey(
  deps: IdentityDeps,
  userId: string,
  name = 'Default',
): Promise<ApiKeyView & { key: string }> {
  await requireUser(deps, userId);
  const generated = generateApiKey();
  const record: ApiKeyRecord = {
    id: newId('key'),
    userId,
    name,
    prefix: generated.prefix,
    hash: generated.hash,
    createdAt: deps.now().toISOString(),
  };
  await deps.store.putApiKey(record);
  return { ...apiKeyView(record), key: generated.key };
}

/** The stored record of an API key; 401 for a missing or unknown key. */
export async function findApiKey(deps: IdentityDeps, key: string | undefined): Promise<ApiKeyRecord> {
  if (!key) throw new UnauthorizedError('Missing API key: send it in the x-api-key header');
  const record = looksLikeApiKey(key) ? await deps.store.findApiKeyByHash(hashApiKey(key)) : undefined;
  if (!record) throw new UnauthorizedError('Invalid API key');
  return record;
}

/** The key's user as a principal; 401 when the user is gone. */
export async function principalOf(deps: IdentityDeps, record: ApiKeyRecord): Promise<Principal> {
  const user = await deps.store.getUser(record.userId);
  if (!user) throw new UnauthorizedError('Invalid API key');
  return { user, apiKeyId: record.id };
}

export async function listApiKeys(deps: IdentityDeps, principal: Principal): Promise<ApiKeyView[]> {
  return (await deps.store.listApiKeys(principal.user.id)).map(apiKeyView);
}

export async function revokeApiKey(
  deps: IdentityDeps,
  principal: Principal,
  keyId: string,
): Promise<ApiKeyView> {
  const deleted = await deps.store.deleteApiKey(principal.user.id, keyId);
  if (!deleted) throw new NotFoundError(`API key ${keyId} not found`);
  return apiKeyView(deleted);
}

/**
 * A workspace owned by `ownerId`, who becomes its admin. With `organizationId` it belongs to that
 * organization, of which the owner must be a member (any role).
 */
export async function createWorkspace(
  deps: IdentityDeps,
  ownerId: string,
  name: string,
  organizationId?: string,
): Promise<Workspace> {
  await requireUser(deps, ownerId);
  if (organizationId !== undefined) await requireOrganizationOfOwner(deps, organizationId, ownerId);
  const workspace: Workspace = {
    id: newId('ws'),
    name,
    ownerId,
    ...(organizationId === undefined ? {} : { organizationId }),
    createdAt: deps.now().toISOString(),
  };
  await deps.store.createWorkspace(workspace, {
    workspaceId: workspace.id,
    userId: ownerId,
    permissions: 'admin',
  });
  return workspace;
}

async function requireOrganizationOfOwner(deps: IdentityDeps, organizationId: string, ownerId: string) {
  await requireOrganization(deps, organizationId);
  if (!(await deps.store.getOrganizationMembership(organizationId, ownerId))) {
    throw new ValidationError(`User ${ownerId} is not a member of organization ${organizationId}`, [
      { path: 'organizationId', message: 'The owner must be a member of the organization' },
    ]);
  }
}

export type WorkspaceView = Workspace & { permissions: WorkspacePermission };

/**
 * The workspaces the user is a member of, and every workspace of the organization they own or
 * administer (as `admin`): a Query on the user's memberships, one on the organization's workspaces.
 */
export async function listWorkspaces(deps: IdentityDeps, principal: Principal): Promise<WorkspaceView[]> {
  const memberships = await deps.store.listWorkspaceMembershipsOfUser(principal.user.id);
  const workspaces = await Promise.all(
    memberships.map(async (membership) => {
      const workspace = await deps.store.getWorkspace(membership.workspaceId);
      return workspace && { ...workspace, permissions: membership.permissions };
    }),
  );
  const views = new Map<string, WorkspaceView>();
  for (const workspace of workspaces) if (workspace) views.set(workspace.id, workspace);
  for (const workspace of await administeredOrganizationWorkspaces(deps, principal.user)) {
    views.set(workspace.id, { ...workspace, permissions: 'admin' });
  }
  return [...views.values()];
}

async function administeredOrganizationWorkspaces(deps: IdentityDeps, user: User): Promise<Workspace[]> {
  if (!user.organizationId) return [];
  const role = await deps.store.getOrganizationMembership(user.organizationId, user.id);
  if (!role || !administersWorkspaces(role.role)) return [];
  return deps.store.listOrganizationWorkspaces(user.organizationId);
}

/** The members of a workspace: for the operator, or for a caller with `needed` on it. */
export async function listWorkspaceMembers(
  deps: IdentityDeps,
  caller: { principal: Principal; needed: WorkspacePermission } | undefined,
  workspaceId: string,
): Promise<WorkspaceMembership[]> {
  if (caller) await requireWorkspaceAccess(deps.store, caller.principal.user.id, workspaceId, caller.needed);
  else if (!(await deps.store.getWorkspace(workspaceId))) {
    throw new NotFoundError(`Workspace ${workspaceId} not found`);
  }
  return deps.store.listWorkspaceMembers(workspaceId);
}

export async function getWorkspace(
  deps: IdentityDeps,
  principal: Principal,
  workspaceId: string,
): Promise<WorkspaceView> {
  // The highest permission the caller has, an organization admin's included.
  const membership = await workspaceAccessOf(deps.store, principal.user.id, workspaceId, 'admin');
  if (!membership) throw new NotFoundError('Workspace not found');
  const workspace = await deps.store.getWorkspace(workspaceId);
  if (!workspace) throw new NotFoundError('Workspace not found');
  return { ...workspace, permissions: membership.permissions };
}

export async function addWorkspaceMember(
  deps: IdentityDeps,
  input: WorkspaceMembership,
): Promise<WorkspaceMembership> {
  const workspace = await deps.store.getWorkspace(input.workspaceId);
  if (!workspace) throw new NotFoundError(`Workspace ${input.workspaceId} not found`);
  await requireUser(deps, input.userId);
  if (workspace.ownerId === input.userId && input.permissions !== 'admin') {
    throw new ValidationError('The workspace owner always keeps admin permissions', [
      { path: 'permissions', message: 'The owner must stay admin' },
    ]);
  }
  await deps.store.putWorkspaceMembership(input);
  return input;
}

export async function removeWorkspaceMember(
  deps: IdentityDeps,
  workspaceId: string,
  userId: string,
): Promise<WorkspaceMembership> {
  const workspace = await deps.store.getWorkspace(workspaceId);
  if (!workspace) throw new NotFoundError(`Workspace ${workspaceId} not found`);
  if (workspace.ownerId === userId) {
    throw new ValidationError('The workspace owner cannot be removed', [
      { path: 'userId', message: 'This user owns the workspace' },
    ]);
  }
  const removed = await deps.store.deleteWorkspaceMembership(workspaceId, userId);
  if (!removed) throw new NotFoundError(`User ${userId} is not a member of workspace ${workspaceId}`);
  return removed;
}

export async function createOrganization(
  deps: IdentityDeps,
  input: { name: string; ownerId: string; plan?: Plan; usageLimitUsd?: number },
): Promise<Organization> {
  await requireUser(deps, input.ownerId);
  const organization: Organization = {
    id: newId('org'),
    name: input.name,
    ownerId: input.ownerId,
    plan: input.plan ?? 'free',
    ...(input.usageLimitUsd === undefined ? {} : { usageLimitUsd: input.usageLimitUsd }),
    createdAt: deps.now().toISOString(),
  };
  // First, so an owner who belongs elsewhere leaves no organization behind.
  await deps.store.setUserOrganization(input.ownerId, organization.id);
  await deps.store.createOrganization(organization, {
    organizationId: organization.id,
    userId: input.ownerId,
    role: 'owner',
  });
  return organization;
}

export async function addOrganizationMember(
  deps: IdentityDeps,
  input: { organizationId: string; userId: string; role: OrganizationRole },
): Promise<OrganizationMembership> {
  const organization = await deps.store.getOrganization(input.organizationId);
  if (!organization) throw new NotFoundError(`Organization ${input.organizationId} not found`);
  await requireUser(deps, input.userId);
  if (organization.ownerId === input.userId && input.role !== 'owner') {
    throw new ValidationError('The organization owner keeps the owner role', [
      { path: 'role', message: 'The owner must stay owner' },
    ]);
  }
  if (organization.ownerId !== input.userId && input.role === 'owner') {
    throw new ValidationError('The organization has one owner, set when it was created', [
      { path: 'role', message: 'Give admin or member' },
    ]);
  }
  await deps.store.setUserOrganization(input.userId, input.organizationId);
  await deps.store.putOrganizationMembership(input);
  return input;
}
