/** The operator's bootstrap over the admin API: users, API keys, workspaces, workflow import. */
import { describe, expect, it } from 'vitest';
import { request, threeBlockGraph } from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();
const uniqueEmail = (name: string) => `${name}-${Math.random().toString(36).slice(2)}@example.com`;

describe('admin bootstrap', () => {
  it('makes a user, an API key for them and a workspace they own, which the key then sees', async () => {
    // Prepare
    const email = uniqueEmail('grace');

    // Act
    const user = await service.admin('POST', '/api/v1/admin/users', { email, name: 'Grace', plan: 'pro' });
    const key = await service.admin('POST', `/api/v1/admin/users/${user.body.data.id}/api-keys`, {
      name: 'ci',
    });
    const workspace = await service.admin('POST', '/api/v1/admin/workspaces', {
      name: 'Grace workspace',
      ownerId: user.body.data.id,
    });
    const listed = await service.as(key.body.data.key)('GET', '/api/workspaces');

    // Assess
    expect(user.status).toBe(201);
    expect(user.body.data).toMatchObject({ id: expect.stringMatching(/^usr_/), email, plan: 'pro' });
    expect(key.status).toBe(201);
    expect(key.body.data.key).toEqual(expect.any(String));
    expect(workspace.status).toBe(201);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: workspace.body.data.id, permissions: 'admin' }),
    ]);
  });

  it('imports and deploys a workflow that the owner can run at once', async () => {
    // Prepare
    const owner = await service.newTenant('importer');

    // Act
    const imported = await service.admin('POST', '/api/v1/admin/workflows/import', {
      workspaceId: owner.workspaceId,
      name: 'Imported',
      state: threeBlockGraph(),
      deploy: true,
    });
    const run = await owner.call('POST', `/api/workflows/${imported.body.data.id}/execute`, { name: 'ada' });

    // Assess
    expect(imported.status).toBe(201);
    expect(imported.body.data).toMatchObject({ isDeployed: true, needsRedeployment: false });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ success: true, output: { shouted: 'ADA' } });
  });

  it('refuses a wrong admin key with 401 UNAUTHORIZED', async () => {
    // Act
    const answer = await request(service.url, 'POST', '/api/v1/admin/users', {
      headers: { 'x-admin-key': 'not-the-key' },
      body: { email: uniqueEmail('mallory'), name: 'Mallory' },
    });

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Invalid admin key', code: 'UNAUTHORIZED' });
  });

  it('refuses an invalid e-mail with 400 VALIDATION_ERROR naming the field', async () => {
    // Act
    const answer = await service.admin('POST', '/api/v1/admin/users', { email: 'not-an-email', name: 'A' });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details[0].path).toBe('email');
  });
});
