import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anOrganization } from '../../support/organizations';
import { decodeQuotedPrintable, filesIn } from '../../support/outbox';
import { useLocalService } from '../../support/service';
import { until } from '../../support/wait';
import { changeSettings } from '../../support/settings';

const service = useLocalService();

beforeAll(() => {
  changeSettings({ ORGANIZATIONS_ENABLED: 'true' });
});

afterEach(() => {
  changeSettings({ ORGANIZATIONS_ENABLED: 'true' });
  changeSettings({ DISABLE_INVITATIONS: undefined });
  changeSettings({ NEXT_PUBLIC_DISABLE_INVITATIONS: undefined });
  changeSettings({ ACCESS_CONTROL_ENABLED: undefined });
});

const outbox = () => join(service.get().service.dataDir, 'outbox', 'email');

/** Sends the request and reads the e-mail it wrote to the outbox: recipient and token. */
async function invitedBy(send: () => Promise<{ status: number; body: any }>) {
  const before = new Set(await filesIn(outbox()));
  const answer = await send();
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  const file = await until(async () => (await filesIn(outbox())).find((path) => !before.has(path)));
  const message = decodeQuotedPrintable(await readFile(file, 'utf8'));
  const token = /"token": "([^"]+)"/.exec(message)?.[1];
  if (!token) throw new Error(`No token in the e-mail:\n${message}`);
  return { invitation: answer.body.data, message, token };
}

describe('invitations', () => {
  it('invite into an organization by e-mail; the invited user accepts with their own key and becomes a member', async () => {
    // Prepare
    const client = service.get();
    const [owner, grace] = await Promise.all([client.newTenant('owner'), client.newTenant('grace')]);
    const organizationId = await anOrganization(client, owner);
    const graceEmail = grace.email;

    // Act
    const { invitation, message, token } = await invitedBy(() =>
      owner.call('POST', `/api/organizations/${organizationId}/invitations`, {
        email: graceEmail,
        role: 'admin',
      }),
    );
    const accepted = await grace.call('POST', '/api/invitations/accept', { token });

    // Assess
    expect(invitation).toMatchObject({ email: graceEmail, organizationId, role: 'admin', status: 'pending' });
    expect(JSON.stringify(invitation)).not.toContain(token);
    expect(message).toMatch(new RegExp(`^To: ${graceEmail}\\r?$`, 'm'));
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.data.organizationMember).toEqual({
      organizationId,
      userId: grace.userId,
      role: 'admin',
    });
    const read = await grace.call('GET', `/api/organizations/${organizationId}`);
    expect(read.body.data.role).toBe('admin');
    const listed = await owner.call('GET', `/api/organizations/${organizationId}/invitations`);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: invitation.id, status: 'accepted' })]);
  });

  it('invite into a workspace; a token is used once and only by the invited address', async () => {
    // Prepare
    const client = service.get();
    const [owner, grace, mallory] = await Promise.all(
      ['owner', 'grace', 'mallory'].map((n) => client.newTenant(n)),
    );
    const graceEmail = grace.email;
    const { token } = await invitedBy(() =>
      owner.call('POST', `/api/workspaces/${owner.workspaceId}/invitations`, {
        email: graceEmail,
        permissions: 'write',
      }),
    );

    // Act
    const byMallory = await mallory.call('POST', '/api/invitations/accept', { token });
    const byGrace = await grace.call('POST', '/api/invitations/accept', { token });
    const again = await grace.call('POST', '/api/invitations/accept', { token });
    const tampered = await grace.call('POST', '/api/invitations/accept', {
      token: `${token.slice(0, -2)}xx`,
    });

    // Assess
    expect(byMallory.status).toBe(403);
    expect(byGrace.status).toBe(200);
    expect(byGrace.body.data.workspaceMember).toEqual({
      workspaceId: owner.workspaceId,
      userId: grace.userId,
      permissions: 'write',
    });
    expect(again.status).toBe(409);
    expect(tampered.status).toBe(400);
    expect(tampered.body.details[0].path).toBe('token');
    const workspace = await grace.call('GET', `/api/workspaces/${owner.workspaceId}`);
    expect(workspace.body.data.permissions).toBe('write');
  });

  it('refuses inviters below admin: a write member of the workspace, a member of the organization', async () => {
    // Prepare
    const client = service.get();
    const [owner, writer] = await Promise.all([client.newTenant('owner'), client.newTenant('writer')]);
    await client.admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      userId: writer.userId,
      permissions: 'write',
    });
    const organizationId = await anOrganization(client, owner, [[writer, 'member']]);

    // Act
    const intoWorkspace = await writer.call('POST', `/api/workspaces/${owner.workspaceId}/invitations`, {
      email: 'someone@example.com',
    });
    const intoOrganization = await writer.call('POST', `/api/organizations/${organizationId}/invitations`, {
      email: 'someone@example.com',
    });

    // Assess
    expect(intoWorkspace.status).toBe(403);
    expect(intoOrganization.status).toBe(403);
  });

  it('revoke a pending invitation, whose token is then refused', async () => {
    // Prepare
    const client = service.get();
    const [owner, grace] = await Promise.all([client.newTenant('owner'), client.newTenant('grace')]);
    const { invitation, token } = await invitedBy(() =>
      owner.call('POST', `/api/workspaces/${owner.workspaceId}/invitations`, { email: grace.email }),
    );

    // Act
    const path = `/api/workspaces/${owner.workspaceId}/invitations/${invitation.id}`;
    const byGrace = await grace.call('DELETE', path);
    const elsewhere = await grace.call(
      'DELETE',
      `/api/workspaces/${grace.workspaceId}/invitations/${invitation.id}`,
    );
    const revoked = await owner.call('DELETE', path);
    const accepted = await grace.call('POST', '/api/invitations/accept', { token });

    // Assess
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.status).toBe('revoked');
    expect(byGrace.status).toBe(404);
    expect(elsewhere.status).toBe(404);
    expect(accepted.status).toBe(404);
  });

  it('are refused everywhere with DISABLE_INVITATIONS (or its NEXT_PUBLIC_ name), tokens issued before included', async () => {
    // Prepare
    const client = service.get();
    const [owner, grace] = await Promise.all([client.newTenant('owner'), client.newTenant('grace')]);
    const { token } = await invitedBy(() =>
      owner.call('POST', `/api/workspaces/${owner.workspaceId}/invitations`, { email: grace.email }),
    );
    changeSettings({ NEXT_PUBLIC_DISABLE_INVITATIONS: 'true' });

    // Act
    const invite = await owner.call('POST', `/api/workspaces/${owner.workspaceId}/invitations`, {
      email: 'someone@example.com',
    });
    const accept = await grace.call('POST', '/api/invitations/accept', { token });

    // Assess
    for (const answer of [invite, accept]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error).toContain('DISABLE_INVITATIONS');
    }
    const members = await client.admin('GET', `/api/v1/admin/workspaces/${owner.workspaceId}/members`);
    expect(members.body.data).toHaveLength(1);
  });

  it('are refused to an inviter whose permission group disables them, and only with access control on', async () => {
    // Prepare
    const client = service.get();
    const [owner, admin] = await Promise.all([client.newTenant('owner'), client.newTenant('admin')]);
    const organizationId = await anOrganization(client, owner, [[admin, 'admin']]);
    changeSettings({ ACCESS_CONTROL_ENABLED: 'true' });
    const groups = `/api/organizations/${organizationId}/permission-groups`;
    const group = await owner.call('POST', groups, { name: 'No invitations', disableInvitations: true });
    await owner.call('POST', `${groups}/${group.body.data.id}/members`, { userId: admin.userId });
    const invite = () =>
      admin.call('POST', `/api/organizations/${organizationId}/invitations`, { email: 'new@example.com' });

    // Act
    const refused = await invite();
    const byOwner = await owner.call('POST', `/api/organizations/${organizationId}/invitations`, {
      email: 'other@example.com',
    });
    changeSettings({ ACCESS_CONTROL_ENABLED: 'false' });
    const switchedOff = await invite();

    // Assess
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/permission group/);
    expect(byOwner.status, JSON.stringify(byOwner.body)).toBe(201);
    expect(switchedOff.status, JSON.stringify(switchedOff.body)).toBe(201);
  });

  it('are refused without ORGANIZATIONS_ENABLED', async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    changeSettings({ ORGANIZATIONS_ENABLED: undefined });

    // Act
    const invite = await owner.call('POST', `/api/workspaces/${owner.workspaceId}/invitations`, {
      email: 'someone@example.com',
    });

    // Assess
    expect(invite.status).toBe(403);
    expect(invite.body.error).toContain('ORGANIZATIONS_ENABLED');
  });
});
