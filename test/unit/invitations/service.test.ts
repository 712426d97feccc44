import { beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../core/identity/service';
import {
  acceptInvitation,
  INVITATION_LIFETIME_IN_MS,
  type InvitationDeps,
  inviteToOrganization,
  inviteToWorkspace,
  revokeOrganizationInvitation,
} from '../../../core/invitations/service';
import { allowAllInvitations } from '../../../core/invitations/types';
import { MemoryEmail, MemoryIdentity, MemoryInvitations } from './fakes';

let identity: MemoryIdentity;
let invitations: MemoryInvitations;
let email: MemoryEmail;
let clock: Date;
let deps: InvitationDeps;
let owner: Principal;
let grace: Principal;

beforeEach(() => {
  identity = new MemoryIdentity();
  invitations = new MemoryInvitations();
  email = new MemoryEmail();
  clock = new Date('2026-11-01T12:00:00.000Z');
  deps = {
    identity: { store: identity.store, now: () => clock },
    invitations,
    policy: allowAllInvitations,
    tokenKey: async () => new Uint8Array(32).fill(1),
    email,
    switches: { organizationsEnabled: true, invitationsDisabled: false },
    publicBaseUrl: 'https://flows.example.com/',
    now: () => clock,
  };
  owner = { user: identity.user('usr_owner', 'owner@example.com'), apiKeyId: 'key_1' };
  grace = { user: identity.user('usr_grace', 'grace@example.com'), apiKeyId: 'key_2' };
  identity.organizationMembers.set('org_1\nusr_owner', {
    organizationId: 'org_1',
    userId: 'usr_owner',
    role: 'owner',
  });
  identity.workspaceMembers.set('ws_1\nusr_owner', {
    workspaceId: 'ws_1',
    userId: 'usr_owner',
    permissions: 'admin',
  });
});

describe('inviting', () => {
  it('stores a pending invitation that expires in a week and e-mails its token to the address only', async () => {
    // Act
    const invitation = await inviteToOrganization(deps, owner, {
      organizationId: 'org_1',
      email: 'Grace@Example.com',
      role: 'admin',
    });

    // Assess
    expect(invitation).toMatchObject({ email: 'grace@example.com', role: 'admin', status: 'pending' });
    expect(new Date(invitation.expiresAt).getTime() - clock.getTime()).toBe(INVITATION_LIFETIME_IN_MS);
    expect(JSON.stringify(invitation)).not.toContain(email.lastToken());
    expect(email.sent[0].to).toEqual(['grace@example.com']);
    expect(email.sent[0].text).toContain('POST https://flows.example.com/api/invitations/accept');
  });

  it('is refused when the permission group of the inviter disables invitations', async () => {
    // Prepare
    const asked: unknown[] = [];
    deps.policy = {
      invitationsDisabledFor: async (userId, organizationId) => {
        asked.push([userId, organizationId]);
        return true;
      },
    };

    // Act
    const refusal = inviteToOrganization(deps, owner, {
      organizationId: 'org_1',
      email: 'a@b.co',
      role: 'member',
    });

    // Assess
    await expect(refusal).rejects.toMatchObject({
      statusCode: 403,
      message: expect.stringContaining('permission group'),
    });
    expect(asked).toEqual([['usr_owner', 'org_1']]);
    expect(email.sent).toEqual([]);
  });

  it('is refused with DISABLE_INVITATIONS, and without organizations', async () => {
    // Prepare
    deps.switches = { organizationsEnabled: true, invitationsDisabled: true };

    // Act
    const disabled = inviteToWorkspace(deps, owner, {
      workspaceId: 'ws_1',
      email: 'a@b.co',
      permissions: 'read',
    });

    // Assess
    await expect(disabled).rejects.toMatchObject({
      statusCode: 403,
      message: expect.stringContaining('DISABLE_INVITATIONS'),
    });
    deps.switches = { organizationsEnabled: false, invitationsDisabled: false };
    await expect(
      inviteToWorkspace(deps, owner, { workspaceId: 'ws_1', email: 'a@b.co', permissions: 'read' }),
    ).rejects.toMatchObject({ statusCode: 403, message: expect.stringContaining('ORGANIZATIONS_ENABLED') });
  });

  it('revokes the invitation when its e-mail cannot be sent', async () => {
    // Prepare
    deps.email = { send: async () => ({ outcome: { kind: 'connection-failed' }, error: 'refused' }) };

    // Act
    const failure = inviteToWorkspace(deps, owner, {
      workspaceId: 'ws_1',
      email: 'a@b.co',
      permissions: 'read',
    });

    // Assess
    await expect(failure).rejects.toThrow('could not be sent');
    expect([...invitations.byId.values()].map((invitation) => invitation.status)).toEqual(['revoked']);
  });
});

describe('accepting', () => {
  it('makes the invited user a member once; a second use is a 409', async () => {
    // Prepare
    await inviteToWorkspace(deps, owner, {
      workspaceId: 'ws_1',
      email: 'grace@example.com',
      permissions: 'write',
    });
    const token = email.lastToken();

    // Act
    const accepted = await acceptInvitation(deps, grace, token);
    const again = acceptInvitation(deps, grace, token);

    // Assess
    expect(accepted.workspaceMember).toEqual({
      workspaceId: 'ws_1',
      userId: 'usr_grace',
      permissions: 'write',
    });
    expect(accepted.invitation).toMatchObject({ status: 'accepted', acceptedAt: clock.toISOString() });
    await expect(again).rejects.toMatchObject({ statusCode: 409 });
  });

  it('is refused for another e-mail address (403) and leaves the invitation usable', async () => {
    // Prepare
    await inviteToOrganization(deps, owner, {
      organizationId: 'org_1',
      email: 'grace@example.com',
      role: 'member',
    });
    const token = email.lastToken();
    const mallory: Principal = {
      user: identity.user('usr_mallory', 'mallory@example.com'),
      apiKeyId: 'key_3',
    };

    // Act
    const refusal = acceptInvitation(deps, mallory, token);

    // Assess
    await expect(refusal).rejects.toMatchObject({ statusCode: 403 });
    expect(identity.organizationMembers.has('org_1\nusr_mallory')).toBe(false);
    await expect(acceptInvitation(deps, grace, token)).resolves.toMatchObject({
      organizationMember: { organizationId: 'org_1', userId: 'usr_grace', role: 'member' },
    });
  });

  it('is refused a week after the invitation, and accepted a moment before', async () => {
    // Prepare
    await inviteToOrganization(deps, owner, {
      organizationId: 'org_1',
      email: 'grace@example.com',
      role: 'member',
    });
    const token = email.lastToken();
    const issuedAt = clock.getTime();

    // Act
    clock = new Date(issuedAt + INVITATION_LIFETIME_IN_MS);
    const late = acceptInvitation(deps, grace, token);

    // Assess
    await expect(late).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('expired'),
    });
    clock = new Date(issuedAt + INVITATION_LIFETIME_IN_MS - 1);
    await expect(acceptInvitation(deps, grace, token)).resolves.toMatchObject({
      invitation: { status: 'accepted' },
    });
  });

  it('is refused for a revoked invitation (404)', async () => {
    // Prepare
    const invitation = await inviteToOrganization(deps, owner, {
      organizationId: 'org_1',
      email: 'grace@example.com',
      role: 'member',
    });
    const token = email.lastToken();
    await revokeOrganizationInvitation(deps, owner, { organizationId: 'org_1', invitationId: invitation.id });

    // Act
    const refusal = acceptInvitation(deps, grace, token);

    // Assess
    await expect(refusal).rejects.toMatchObject({ statusCode: 404 });
  });

  it('never lowers a permission the user has already', async () => {
    // Prepare
    identity.workspaceMembers.set('ws_1\nusr_grace', {
      workspaceId: 'ws_1',
      userId: 'usr_grace',
      permissions: 'admin',
    });
    await inviteToWorkspace(deps, owner, {
      workspaceId: 'ws_1',
      email: 'grace@example.com',
      permissions: 'read',
    });

    // Act
    const accepted = await acceptInvitation(deps, grace, email.lastToken());

    // Assess
    expect(accepted.workspaceMember?.permissions).toBe('admin');
    expect(identity.workspaceMembers.get('ws_1\nusr_grace')?.permissions).toBe('admin');
  });
});
