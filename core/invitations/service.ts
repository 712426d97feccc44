/**
 * Invitations: a user who may administer an organization or a workspace invites an e-mail address;
 * the signed, expiring token goes only to that address; the user with that address accepts it once
 * (authenticated by their own API key) and becomes a member. Accepting never creates a user: the
 * operator creates users (admin API), so an invitation cannot open an account on its own.
 */
import type { Switches } from '../config/switches';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { permits, requireWorkspaceAccess } from '../identity/access';
import { requireOrganizationRole, requireOrganizationsEnabled } from '../identity/organizations';
import {
  addOrganizationMember,
  addWorkspaceMember,
  type IdentityDeps,
  type Principal,
} from '../identity/service';
import type {
  OrganizationMembership,
  OrganizationRole,
  WorkspaceMembership,
  WorkspacePermission,
} from '../identity/types';
import { newId } from '../ids';
import type { EmailSender } from '../notifications/types';
import { isSuccess } from '../notifications/retry';
import { invitationMessage } from './message';
import { signInvitationToken, type TokenKeySource, verifyInvitationToken } from './token';
import type { Invitation, InvitationPolicy, InvitationStore } from './types';

/** How long a token can be used: a week, as invitations in the product this service replaces. */
export const INVITATION_LIFETIME_IN_MS = 7 * 24 * 60 * 60 * 1000;

export interface InvitationDeps {
  identity: IdentityDeps;
  invitations: InvitationStore;
  policy: InvitationPolicy;
  tokenKey: TokenKeySource;
  /** Only for sending; accepting and listing need no e-mail. */
  email?: EmailSender;
  switches: Pick<Switches, 'organizationsEnabled' | 'invitationsDisabled'>;
  /** Where the e-mail tells the invitee to send the token. */
  publicBaseUrl?: string;
  now: () => Date;
}

export type InvitationView = Omit<Invitation, 'acceptedBy'>;

function view({ acceptedBy: _acceptedBy, ...rest }: Invitation): InvitationView {
  return rest;
}

/** Invitations are team management: they need organizations on and invitations not turned off. */
export function requireInvitationsOn(switches: InvitationDeps['switches']): void {
  if (switches.invitationsDisabled) {
    throw new ForbiddenError(
      'Invitations are turned off on this deployment (DISABLE_INVITATIONS); the operator manages membership through the admin API',
    );
  }
  requireOrganizationsEnabled(switches);
}

async function requireMayInvite(deps: InvitationDeps, principal: Principal, organizationId?: string) {
  // Into a workspace of no organization, the inviter's own organization's group still applies.
  const groupsOf = organizationId ?? principal.user.organizationId;
  if (await deps.policy.invitationsDisabledFor(principal.user.id, groupsOf)) {
    throw new ForbiddenError('Your permission group does not allow you to invite');
  }
}

export async function inviteToOrganization(
  deps: InvitationDeps,
  principal: Principal,
  input: { organizationId: string; email: string; role: 'admin' | 'member' },
  needed: OrganizationRole = 'admin',
): Promise<InvitationView> {
  requireInvitationsOn(deps.switches);
  await requireOrganizationRole(deps.identity, principal, input.organizationId, needed);
  await requireMayInvite(deps, principal, input.organizationId);
  const organization = await deps.identity.store.getOrganization(input.organizationId);
  return issue(deps, principal, { organizationId: input.organizationId, role: input.role }, input.email, {
    kind: 'organization',
    name: organization?.name ?? input.organizationId,
  });
}

export async function inviteToWorkspace(
  deps: InvitationDeps,
  principal: Principal,
  input: { workspaceId: string; email: string; permissions: WorkspacePermission },
  needed: WorkspacePermission = 'admin',
): Promise<InvitationView> {
  requireInvitationsOn(deps.switches);
  await requireWorkspaceAccess(deps.identity.store, principal.user.id, input.workspaceId, needed);
  const workspace = await deps.identity.store.getWorkspace(input.workspaceId);
  if (!workspace) throw new NotFoundError('Workspace not found');
  await requireMayInvite(deps, principal, workspace.organizationId ?? principal.user.organizationId);
  return issue(
    deps,
    principal,
    { workspaceId: input.workspaceId, permissions: input.permissions },
    input.email,
    { kind: 'workspace', name: workspace.name },
  );
}

async function issue(
  deps: InvitationDeps,
  principal: Principal,
  target: Pick<Invitation, 'organizationId' | 'role' | 'workspaceId' | 'permissions'>,
  email: string,
  into: { kind: 'organization' | 'workspace'; name: string },
): Promise<InvitationView> {
  if (!deps.email) throw new Error('Invitations need an e-mail sender, and none is wired');
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_IN_MS);
  const invitation: Invitation = {
    id: newId('inv'),
    email: email.trim().toLowerCase(),
    ...target,
    status: 'pending',
    invitedBy: principal.user.id,
    createdAt: now.toISOString(),
    expiresAt: expiresAt.toISOString(),
  };
  await deps.invitations.create(invitation);
  const token = await signInvitationToken(deps.tokenKey, { invitationId: invitation.id, expiresAt });
  const sent = await deps.email.send(
    invitationMessage({
      to: invitation.email,
      inviter: principal.user.name,
      into,
      token,
      expiresAt,
      acceptUrl: `${(deps.publicBaseUrl ?? '').replace(/\/+$/, '')}/api/invitations/accept`,
    }),
  );
  if (!isSuccess(sent.outcome)) {
    // A token that never reached its address must not stay usable.
    await deps.invitations.settle(invitation.id, { status: 'revoked' });
    throw new Error(`The invitation e-mail could not be sent: ${sent.error ?? JSON.stringify(sent.outcome)}`);
  }
  return view(invitation);
}

export async function listOrganizationInvitations(
  deps: InvitationDeps,
  principal: Principal,
  organizationId: string,
  needed: OrganizationRole = 'admin',
): Promise<InvitationView[]> {
  requireInvitationsOn(deps.switches);
  await requireOrganizationRole(deps.identity, principal, organizationId, needed);
  return (await deps.invitations.listForOrganization(organizationId)).map(view);
}

export async function listWorkspaceInvitations(
  deps: InvitationDeps,
  principal: Principal,
  workspaceId: string,
  needed: WorkspacePermission = 'admin',
): Promise<InvitationView[]> {
  requireInvitationsOn(deps.switches);
  await requireWorkspaceAccess(deps.identity.store, principal.user.id, workspaceId, needed);
  return (await deps.invitations.listForWorkspace(workspaceId)).map(view);
}

/** Revokes a pending invitation into the organization, for a caller with the `needed` role in it. */
export async function revokeOrganizationInvitation(
  deps: InvitationDeps,
  principal: Principal,
  input: { organizationId: string; invitationId: string },
  needed: OrganizationRole = 'admin',
): Promise<InvitationView> {
  requireInvitationsOn(deps.switches);
  await requireOrganizationRole(deps.identity, principal, input.organizationId, needed);
  return revoke(deps, input.invitationId, (invitation) => invitation.organizationId === input.organizationId);
}

/** Revokes a pending invitation into the workspace, for a caller with `needed` permission on it. */
export async function revokeWorkspaceInvitation(
  deps: InvitationDeps,
  principal: Principal,
  input: { workspaceId: string; invitationId: string },
  needed: WorkspacePermission = 'admin',
): Promise<InvitationView> {
  requireInvitationsOn(deps.switches);
  await requireWorkspaceAccess(deps.identity.store, principal.user.id, input.workspaceId, needed);
  return revoke(deps, input.invitationId, (invitation) => invitation.workspaceId === input.workspaceId);
}

async function revoke(
  deps: InvitationDeps,
  invitationId: string,
  belongs: (invitation: Invitation) => boolean,
): Promise<InvitationView> {
  const invitation = await deps.invitations.find(invitationId);
  if (!invitation || !belongs(invitation)) throw new NotFoundError(`Invitation ${invitationId} not found`);
  const revoked = await deps.invitations.settle(invitationId, { status: 'revoked' });
  if (!revoked) throw new ConflictError(`Invitation ${invitationId} is ${invitation.status} already`);
  return view(revoked);
}

export interface AcceptedInvitation {
  invitation: InvitationView;
  organizationMember?: OrganizationMembership;
  workspaceMember?: WorkspaceMembership;
}

/**
 * Checks the token (signature, expiry), the invitation (pending) and the caller (the invited
 * address), adds the membership, then settles the invitation: a second use is a 409. The
 * membership comes first so an interrupted accept can be retried with the same token.
 */
export async function acceptInvitation(
  deps: InvitationDeps,
  principal: Principal,
  token: string,
): Promise<AcceptedInvitation> {
  requireInvitationsOn(deps.switches);
  const now = deps.now();
  const { invitationId } = await verifyInvitationToken(deps.tokenKey, token, now);
  const invitation = await deps.invitations.find(invitationId);
  if (!invitation || invitation.status === 'revoked') {
    throw new NotFoundError('This invitation does not exist or was revoked');
  }
  if (invitation.status === 'accepted') throw new ConflictError('This invitation has been used already');
  if (new Date(invitation.expiresAt).getTime() <= now.getTime()) {
    throw new ValidationError('The invitation has expired; ask for a new one', [
      { path: 'token', message: 'Expired' },
    ]);
  }
  if (principal.user.email.toLowerCase() !== invitation.email) {
    throw new ForbiddenError(
      'This invitation is for another e-mail address: accept it with an API key of the invited user',
    );
  }
  const result: Omit<AcceptedInvitation, 'invitation'> = {};
  if (invitation.organizationId && invitation.role) {
    result.organizationMember = await joinOrganization(
      deps,
      invitation.organizationId,
      principal,
      invitation.role,
    );
  } else if (invitation.workspaceId && invitation.permissions) {
    result.workspaceMember = await joinWorkspace(
      deps,
      invitation.workspaceId,
      principal,
      invitation.permissions,
    );
  }
  const settled = await deps.invitations.settle(invitationId, {
    status: 'accepted',
    acceptedAt: now.toISOString(),
    acceptedBy: principal.user.id,
  });
  if (!settled) throw new ConflictError('This invitation has been used already');
  return { invitation: view(settled), ...result };
}

/** An existing member keeps a role higher than the invitation's (an invitation never demotes). */
async function joinOrganization(
  deps: InvitationDeps,
  organizationId: string,
  principal: Principal,
  role: 'admin' | 'member',
): Promise<OrganizationMembership> {
  const current = await deps.identity.store.getOrganizationMembership(organizationId, principal.user.id);
  if (current && current.role !== 'member') return current;
  return addOrganizationMember(deps.identity, { organizationId, userId: principal.user.id, role });
}

async function joinWorkspace(
  deps: InvitationDeps,
  workspaceId: string,
  principal: Principal,
  permissions: WorkspacePermission,
): Promise<WorkspaceMembership> {
  const current = await deps.identity.store.getWorkspaceMembership(workspaceId, principal.user.id);
  if (current && permits(current.permissions, permissions)) return current;
  return addWorkspaceMember(deps.identity, { workspaceId, userId: principal.user.id, permissions });
}
