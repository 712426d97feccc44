/**
 * Invitations through the compiled server: the token goes by e-mail, which the local service
 * writes to its outbox (no SMTP_URL), and the invited user accepts it with their own key.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployedWorkflow } from '../../support/api-client';
import { mailContaining } from '../support/outbox';
import { useE2eService } from './service';

const service = useE2eService();

/** The token of the e-mail the outbox holds for `email`. */
async function tokenMailedTo(email: string): Promise<string> {
  const message = await mailContaining(join(service.dataDir, 'outbox', 'email'), email);
  const token = /"token": "([^"]+)"/.exec(message)?.[1];
  if (!token) throw new Error(`No token in the e-mail:\n${message}`);
  return token;
}

describe('invitations', () => {
  it('invite into a workspace by e-mail; the invited user accepts and may then run its workflows', async () => {
    // Prepare
    const owner = await service.newTenant('inviter');
    const grace = await service.newTenant('grace');
    const id = await deployedWorkflow(owner);

    // Act
    const invited = await owner.call('POST', `/api/workspaces/${owner.workspaceId}/invitations`, {
      email: grace.email,
      permissions: 'write',
    });
    const token = await tokenMailedTo(grace.email);
    const accepted = await grace.call('POST', '/api/invitations/accept', { token });
    const again = await grace.call('POST', '/api/invitations/accept', { token });
    const run = await grace.call('POST', `/api/workflows/${id}/execute`, { name: 'grace' });

    // Assess
    expect(invited.status).toBe(201);
    expect(invited.body.data).toMatchObject({ email: grace.email, permissions: 'write', status: 'pending' });
    expect(JSON.stringify(invited.body)).not.toContain(token);
    expect(accepted.status).toBe(200);
    expect(again.status).toBe(409);
    expect(run.status).toBe(200);
    expect(run.body.output).toEqual({ shouted: 'GRACE' });
  });

  it('refuse a token accepted by another address with 403, and a tampered one with 400 naming token', async () => {
    // Prepare
    const owner = await service.newTenant('inviter-refused');
    const grace = await service.newTenant('grace-refused');
    const mallory = await service.newTenant('mallory');
    await owner.call('POST', `/api/workspaces/${owner.workspaceId}/invitations`, {
      email: grace.email,
      permissions: 'read',
    });
    const token = await tokenMailedTo(grace.email);

    // Act
    const byMallory = await mallory.call('POST', '/api/invitations/accept', { token });
    const tampered = await grace.call('POST', '/api/invitations/accept', {
      token: `${token.slice(0, -2)}xx`,
    });

    // Assess
    expect(byMallory.status).toBe(403);
    expect(tampered.status).toBe(400);
    expect(tampered.body.details[0].path).toBe('token');
  });
});
