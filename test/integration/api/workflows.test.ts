import { describe, expect, it } from 'vitest';
import { threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService();

describe('workflows API', () => {
  it('creates a workflow with a graph and reads it back', async () => {
    const tenant = await service.get().newTenant('author');
    const createdAnswer = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Shouter',
      description: 'Shouts',
      state: threeBlockGraph(),
    });
    expect(createdAnswer.status).toBe(201);
    expect(createdAnswer.body.data).toMatchObject({
      name: 'Shouter',
      isDeployed: false,
      needsRedeployment: false,
    });
    const read = await tenant.call('GET', `/api/workflows/${createdAnswer.body.data.id}`);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body.data.state.blocks).sort()).toEqual(['respond', 'shout', 'start']);
    expect(read.body.data.revision).toBeUndefined();
  });

  it('creates a workflow without a graph with a lone Start block', async () => {
    const tenant = await service.get().newTenant('author');
    const answer = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Empty',
    });
    expect(answer.status).toBe(201);
    expect(Object.values(answer.body.data.state.blocks).map((block: any) => block.type)).toEqual(['start']);
  });

  it('refuses a graph with an unknown block type, naming the block', async () => {
    const tenant = await service.get().newTenant('author');
    const state = threeBlockGraph();
    state.blocks.shout.type = 'teleport';
    const answer = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Bad',
      state,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.details).toContainEqual(expect.objectContaining({ path: 'blocks.shout.type' }));
  });

  it('refuses a create without a name with 400 naming name', async () => {
    const tenant = await service.get().newTenant('author');
    const answer = await tenant.call('POST', '/api/workflows', { workspaceId: tenant.workspaceId });
    expect(answer.status).toBe(400);
    expect(answer.body.details[0].path).toBe('name');
  });

  it('lists the workflows of a workspace without their graphs', async () => {
    const tenant = await service.get().newTenant('author');
    await tenant.call('POST', '/api/workflows', { workspaceId: tenant.workspaceId, name: 'One' });
    await tenant.call('POST', '/api/workflows', { workspaceId: tenant.workspaceId, name: 'Two' });
    const answer = await tenant.call('GET', `/api/workflows?workspaceId=${tenant.workspaceId}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((workflow: any) => workflow.name).sort()).toEqual(['One', 'Two']);
    expect(answer.body.data[0].state).toBeUndefined();
  });

  it('refuses a list without workspaceId with 400', async () => {
    const tenant = await service.get().newTenant('author');
    const answer = await tenant.call('GET', '/api/workflows');
    expect(answer.status).toBe(400);
    expect(answer.body.details[0].path).toBe('workspaceId');
  });

  it('moves through deploy, edit (needs redeployment), redeploy and undeploy', async () => {
    const tenant = await service.get().newTenant('author');
    const { body } = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Flow',
      state: threeBlockGraph(),
    });
    const id = body.data.id;
    expect((await tenant.call('GET', `/api/workflows/${id}/status`)).body).toEqual({
      isDeployed: false,
      needsRedeployment: false,
    });

    const deployed = await tenant.call('POST', `/api/workflows/${id}/deploy`);
    expect(deployed.status).toBe(200);
    expect(deployed.body.data).toMatchObject({ isDeployed: true, needsRedeployment: false });
    expect(Date.parse(deployed.body.data.deployedAt)).not.toBeNaN();

    const renamed = await tenant.call('PUT', `/api/workflows/${id}`, { name: 'Renamed' });
    expect(renamed.body.data.needsRedeployment).toBe(false);

    const edited = await tenant.call('PUT', `/api/workflows/${id}`, {
      state: threeBlockGraph({ code: 'return 1;' }),
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data.needsRedeployment).toBe(true);
    expect((await tenant.call('GET', `/api/workflows/${id}/status`)).body.needsRedeployment).toBe(true);

    const redeployed = await tenant.call('POST', `/api/workflows/${id}/deploy`);
    expect(redeployed.body.data.needsRedeployment).toBe(false);
    expect((await tenant.call('GET', `/api/workflows/${id}`)).body.data.deployedVersion).toBe(2);

    const undeployed = await tenant.call('POST', `/api/workflows/${id}/undeploy`);
    expect(undeployed.body.data).toEqual({ isDeployed: false, needsRedeployment: false });
  });

  it('keeps the deployed snapshot running until a redeploy', async () => {
    const tenant = await service.get().newTenant('author');
    const { body } = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Flow',
      state: threeBlockGraph(),
    });
    await tenant.call('POST', `/api/workflows/${body.data.id}/deploy`);
    await tenant.call('PUT', `/api/workflows/${body.data.id}`, {
      state: threeBlockGraph({ code: "return 'changed';" }),
    });
    const run = await tenant.call('POST', `/api/workflows/${body.data.id}/execute`, { name: 'ada' });
    expect(run.body.output).toEqual({ shouted: 'ADA' });
  });

  it('refuses an empty update with 400', async () => {
    const tenant = await service.get().newTenant('author');
    const { body } = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Flow',
    });
    const answer = await tenant.call('PUT', `/api/workflows/${body.data.id}`, {});
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
  });

  it('refuses an update with an invalid graph and keeps the stored one', async () => {
    const tenant = await service.get().newTenant('author');
    const { body } = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Flow',
      state: threeBlockGraph(),
    });
    const state = threeBlockGraph();
    state.edges.push({ id: 'loop', source: 'respond', target: 'shout', sourceHandle: 'source' });
    const answer = await tenant.call('PUT', `/api/workflows/${body.data.id}`, { state });
    expect(answer.status).toBe(400);
    const read = await tenant.call('GET', `/api/workflows/${body.data.id}`);
    expect(read.body.data.state.edges).toHaveLength(2);
  });

  it('deletes a workflow, after which it is 404', async () => {
    const tenant = await service.get().newTenant('author');
    const { body } = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Doomed',
    });
    const deleted = await tenant.call('DELETE', `/api/workflows/${body.data.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.name).toBe('Doomed');
    expect((await tenant.call('GET', `/api/workflows/${body.data.id}`)).status).toBe(404);
    expect((await tenant.call('DELETE', `/api/workflows/${body.data.id}`)).status).toBe(404);
  });

  it('lets a read member see but not change, deploy or run a workflow', async () => {
    const owner = await service.get().newTenant('owner');
    const reader = await service.get().newTenant('reader');
    await service.get().admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      userId: reader.userId,
      permissions: 'read',
    });
    const { body } = await owner.call('POST', '/api/workflows', {
      workspaceId: owner.workspaceId,
      name: 'Flow',
      state: threeBlockGraph(),
    });
    await owner.call('POST', `/api/workflows/${body.data.id}/deploy`);

    expect((await reader.call('GET', `/api/workflows/${body.data.id}`)).status).toBe(200);
    const update = await reader.call('PUT', `/api/workflows/${body.data.id}`, { name: 'Mine' });
    expect(update.status).toBe(403);
    expect(update.body.code).toBe('FORBIDDEN');
    expect((await reader.call('POST', `/api/workflows/${body.data.id}/deploy`)).status).toBe(403);
    expect((await reader.call('POST', `/api/workflows/${body.data.id}/execute`, { name: 'x' })).status).toBe(
      403,
    );
    expect(
      (await reader.call('POST', '/api/workflows', { workspaceId: owner.workspaceId, name: 'X' })).status,
    ).toBe(403);
  });

  it('refuses management calls without a key or with a bad key with 401', async () => {
    const anonymous = service.get().as('');
    expect((await anonymous('GET', '/api/workspaces')).status).toBe(401);
    const forged = await service.get().as('svc_forged-key-that-does-not-exist')('GET', '/api/workspaces');
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ error: 'Invalid API key', code: 'UNAUTHORIZED' });
  });
});

describe('workspaces API', () => {
  it('creates a workspace whose creator is admin, and lists it', async () => {
    const tenant = await service.get().newTenant('creator');
    const created = await tenant.call('POST', '/api/workspaces', { name: 'Second' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Second', ownerId: tenant.userId, permissions: 'admin' });
    const listed = await tenant.call('GET', '/api/workspaces');
    expect(listed.body.data.map((workspace: any) => workspace.id).sort()).toEqual(
      [tenant.workspaceId, created.body.data.id].sort(),
    );
  });

  it('refuses a workspace without a name with 400', async () => {
    const tenant = await service.get().newTenant('creator');
    const answer = await tenant.call('POST', '/api/workspaces', { name: '  ' });
    expect(answer.status).toBe(400);
    expect(answer.body.details[0].path).toBe('name');
  });
});
