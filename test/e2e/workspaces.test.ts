/**
 * The caller's own resources through the compiled server: workspaces, the workspace environment
 * (encrypted at rest, a secret redacted from a run's answer), and API keys made and revoked.
 */
import { describe, expect, it } from 'vitest';
import { deployedWorkflow, threeBlockGraph } from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();

describe('workspaces', () => {
  it('creates a workspace the caller administers and lists it beside their own', async () => {
    // Prepare
    const tenant = await service.newTenant('spaces');

    // Act
    const created = await tenant.call('POST', '/api/workspaces', { name: 'Second' });
    const listed = await tenant.call('GET', '/api/workspaces');
    const read = await tenant.call('GET', `/api/workspaces/${created.body.data.id}`);

    // Assess
    expect(created.status).toBe(201);
    expect(listed.body.data.map((workspace: { id: string }) => workspace.id).sort()).toEqual(
      [tenant.workspaceId, created.body.data.id].sort(),
    );
    expect(read.body.data).toMatchObject({ id: created.body.data.id, name: 'Second' });
  });
});

describe('the workspace environment', () => {
  it('keeps a variable that a run reads, redacts its value from the answer, and deletes it', async () => {
    // Prepare
    const tenant = await service.newTenant('env');
    const path = `/api/workspaces/${tenant.workspaceId}/environment/GREETING`;
    const id = await deployedWorkflow(
      tenant,
      threeBlockGraph({ code: 'return {{GREETING}} + ", " + <start.name>;' }),
    );

    // Act
    const put = await tenant.call('PUT', path, { value: 'hello-secret-42' });
    const listed = await tenant.call('GET', `/api/workspaces/${tenant.workspaceId}/environment`);
    const run = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const deleted = await tenant.call('DELETE', path);
    const runWithout = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Assess
    expect(put.status).toBe(201);
    expect(JSON.stringify(listed.body.data)).toContain('GREETING');
    expect(run.status).toBe(200);
    expect(run.body.output).toEqual({ shouted: '[REDACTED], ada' });
    expect(deleted.status).toBe(200);
    expect(runWithout.status).toBe(500);
    expect(runWithout.body.error).toContain('Environment variable "GREETING" is not set');
  });

  it("answers 404 for another tenant's environment", async () => {
    // Prepare
    const owner = await service.newTenant('env-owner');
    const stranger = await service.newTenant('env-stranger');

    // Act
    const answer = await stranger.call('GET', `/api/workspaces/${owner.workspaceId}/environment`);

    // Assess
    expect(answer.status).toBe(404);
  });
});

describe('API keys', () => {
  it('makes a second key shown once, lists keys without them, and a revoked key gets 401', async () => {
    // Prepare
    const tenant = await service.newTenant('keys');

    // Act
    const created = await tenant.call('POST', '/api/users/me/api-keys', { name: 'temporary' });
    const listed = await tenant.call('GET', '/api/users/me/api-keys');
    const withNewKey = await service.as(created.body.data.key)('GET', '/api/workspaces');
    const revoked = await tenant.call('DELETE', `/api/users/me/api-keys/${created.body.data.id}`);
    const withRevokedKey = await service.as(created.body.data.key)('GET', '/api/workspaces');

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data.key).toMatch(/^svc_/);
    expect(listed.body.data).toHaveLength(2);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.data.key);
    expect(withNewKey.status).toBe(200);
    expect(revoked.status).toBe(200);
    expect(withRevokedKey.status).toBe(401);
    expect(withRevokedKey.body.code).toBe('UNAUTHORIZED');
  });
});
