import { describe, expect, it } from 'vitest';
import { request, threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService();
const uniqueEmail = (name: string) => `${name}-${Math.random().toString(36).slice(2)}@example.com`;

describe('admin API', () => {
  it('creates a user and answers 201 with it under data', async () => {
    const answer = await service
      .get()
      .admin('POST', '/api/v1/admin/users', { email: 'Grace@Example.com', name: 'Grace' });
    expect(answer.status).toBe(201);
    expect(answer.body.data).toMatchObject({ email: 'grace@example.com', name: 'Grace', plan: 'free' });
    expect(answer.body.data.id).toMatch(/^usr_/);
  });

  it('refuses a missing admin key with 401 UNAUTHORIZED', async () => {
    const answer = await request(service.get().url, 'POST', '/api/v1/admin/users', {
      body: { email: 'a@b.co', name: 'A' },
    });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('UNAUTHORIZED');
  });

  it('refuses a wrong admin key with 401', async () => {
    const answer = await request(service.get().url, 'POST', '/api/v1/admin/users', {
      headers: { 'x-admin-key': 'not-the-key' },
      body: { email: 'a@b.co', name: 'A' },
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Invalid admin key', code: 'UNAUTHORIZED' });
  });

  it('refuses an invalid e-mail with 400 VALIDATION_ERROR naming the field', async () => {
    const answer = await service
      .get()
      .admin('POST', '/api/v1/admin/users', { email: 'not-an-email', name: 'A' });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.error).toContain('"email"');
    expect(answer.body.details[0].path).toBe('email');
  });

  it('refuses a body that is not JSON with 400 INVALID_JSON', async () => {
    const answer = await request(service.get().url, 'POST', '/api/v1/admin/users', {
      headers: { 'x-admin-key': service.get().service.adminKey },
      rawBody: '{"email": ',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('INVALID_JSON');
  });

  it('refuses a second user with the same e-mail in any case with 409 and keeps the first', async () => {
    const email = uniqueEmail('dup');
    const first = await service.get().admin('POST', '/api/v1/admin/users', { email, name: 'First' });
    const second = await service
      .get()
      .admin('POST', '/api/v1/admin/users', { email: email.toUpperCase(), name: 'Second' });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('CONFLICT');
    const key = await service.get().admin('POST', `/api/v1/admin/users/${first.body.data.id}/api-keys`, {});
    expect(key.status).toBe(201);
  });

  it('creates an API key shown once, with a prefix but no hash', async () => {
    const user = await service
      .get()
      .admin('POST', '/api/v1/admin/users', { email: uniqueEmail('key'), name: 'K' });
    const answer = await service
      .get()
      .admin('POST', `/api/v1/admin/users/${user.body.data.id}/api-keys`, { name: 'ci' });
    expect(answer.status).toBe(201);
    expect(answer.body.data.key).toMatch(/^svc_/);
    expect(answer.body.data.key.startsWith(answer.body.data.prefix)).toBe(true);
    expect(answer.body.data.hash).toBeUndefined();
  });

  it('answers 404 for an API key of an unknown user', async () => {
    const answer = await service.get().admin('POST', '/api/v1/admin/users/usr_missing/api-keys', {});
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('NOT_FOUND');
  });

  it('answers 404 for a workspace whose owner does not exist', async () => {
    const answer = await service
      .get()
      .admin('POST', '/api/v1/admin/workspaces', { name: 'W', ownerId: 'usr_missing' });
    expect(answer.status).toBe(404);
  });

  it('creates an organization and adds members with roles', async () => {
    const owner = await service
      .get()
      .admin('POST', '/api/v1/admin/users', { email: uniqueEmail('owner'), name: 'O' });
    const member = await service
      .get()
      .admin('POST', '/api/v1/admin/users', { email: uniqueEmail('member'), name: 'M' });
    const organization = await service
      .get()
      .admin('POST', '/api/v1/admin/organizations', { name: 'Acme', ownerId: owner.body.data.id });
    expect(organization.status).toBe(201);
    expect(organization.body.data).toMatchObject({ name: 'Acme', ownerId: owner.body.data.id });
    const added = await service
      .get()
      .admin('POST', `/api/v1/admin/organizations/${organization.body.data.id}/members`, {
        userId: member.body.data.id,
        role: 'admin',
      });
    expect(added.status).toBe(200);
    expect(added.body.data).toEqual({
      organizationId: organization.body.data.id,
      userId: member.body.data.id,
      role: 'admin',
    });
  });

  it('refuses an unknown organization role with 400 naming role', async () => {
    const owner = await service
      .get()
      .admin('POST', '/api/v1/admin/users', { email: uniqueEmail('o2'), name: 'O' });
    const organization = await service
      .get()
      .admin('POST', '/api/v1/admin/organizations', { name: 'Acme', ownerId: owner.body.data.id });
    const answer = await service
      .get()
      .admin('POST', `/api/v1/admin/organizations/${organization.body.data.id}/members`, {
        userId: owner.body.data.id,
        role: 'king',
      });
    expect(answer.status).toBe(400);
    expect(answer.body.details[0].path).toBe('role');
  });

  it('adds a workspace member whose key then sees the workspace, and removes them again', async () => {
    const owner = await service.get().newTenant('owner');
    const guest = await service.get().newTenant('guest');
    const added = await service.get().admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      userId: guest.userId,
      permissions: 'read',
    });
    expect(added.status).toBe(200);
    expect((await guest.call('GET', `/api/workspaces/${owner.workspaceId}`)).body.data.permissions).toBe(
      'read',
    );

    const removed = await service
      .get()
      .admin('DELETE', `/api/v1/admin/workspaces/${owner.workspaceId}/members?userId=${guest.userId}`);
    expect(removed.status).toBe(200);
    expect((await guest.call('GET', `/api/workspaces/${owner.workspaceId}`)).status).toBe(404);
  });

  it('answers 404 when removing somebody who is not a member', async () => {
    const owner = await service.get().newTenant('owner');
    const answer = await service
      .get()
      .admin('DELETE', `/api/v1/admin/workspaces/${owner.workspaceId}/members?userId=usr_nobody`);
    expect(answer.status).toBe(404);
  });

  it('refuses to remove the workspace owner', async () => {
    const owner = await service.get().newTenant('owner');
    const answer = await service
      .get()
      .admin('DELETE', `/api/v1/admin/workspaces/${owner.workspaceId}/members?userId=${owner.userId}`);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
  });

  it('refuses to remove a member without userId with 400 naming userId', async () => {
    const owner = await service.get().newTenant('owner');
    const answer = await service
      .get()
      .admin('DELETE', `/api/v1/admin/workspaces/${owner.workspaceId}/members`);
    expect(answer.status).toBe(400);
    expect(answer.body.details[0].path).toBe('userId');
  });

  it('imports and deploys a workflow that then runs', async () => {
    const owner = await service.get().newTenant('importer');
    const imported = await service.get().admin('POST', '/api/v1/admin/workflows/import', {
      workspaceId: owner.workspaceId,
      name: 'Imported',
      state: threeBlockGraph(),
      deploy: true,
    });
    expect(imported.status).toBe(201);
    expect(imported.body.data).toMatchObject({
      isDeployed: true,
      needsRedeployment: false,
      deployedVersion: 1,
    });
    const run = await owner.call('POST', `/api/workflows/${imported.body.data.id}/execute`, { name: 'ada' });
    expect(run.body.output).toEqual({ shouted: 'ADA' });
  });

  it('refuses to import an invalid graph with 400 and details', async () => {
    const owner = await service.get().newTenant('importer');
    const state = threeBlockGraph();
    state.edges.push({ id: 'bad', source: 'shout', target: 'nowhere', sourceHandle: 'source' });
    const answer = await service.get().admin('POST', '/api/v1/admin/workflows/import', {
      workspaceId: owner.workspaceId,
      name: 'Bad',
      state,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details.some((detail: { path: string }) => detail.path.includes('edges'))).toBe(true);
  });
});
