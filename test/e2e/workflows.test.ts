/** Workflows over the management API: create, read, list, change, delete, deploy and undeploy. */
import { describe, expect, it } from 'vitest';
import { draftWorkflow, threeBlockGraph } from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();

describe('workflows', () => {
  it('creates, reads, lists, changes and deletes a workflow', async () => {
    // Prepare
    const tenant = await service.newTenant('crud');

    // Act
    const created = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Shouter',
      state: threeBlockGraph(),
    });
    const id = created.body.data.id;
    const read = await tenant.call('GET', `/api/workflows/${id}`);
    const listed = await tenant.call('GET', `/api/workflows?workspaceId=${tenant.workspaceId}`);
    const changed = await tenant.call('PUT', `/api/workflows/${id}`, { name: 'Louder' });
    const deleted = await tenant.call('DELETE', `/api/workflows/${id}`);
    const gone = await tenant.call('GET', `/api/workflows/${id}`);

    // Assess
    expect(created.status).toBe(201);
    expect(id).toMatch(/^wf_/);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id, name: 'Shouter', state: { blocks: expect.any(Object) } });
    expect(Object.keys(read.body.data.state.blocks)).toEqual(['start', 'shout', 'respond']);
    expect(listed.body.data.map((workflow: { id: string }) => workflow.id)).toEqual([id]);
    expect(changed.status).toBe(200);
    expect(changed.body.data.name).toBe('Louder');
    expect(deleted.status).toBe(200);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('NOT_FOUND');
  });

  it('deploys, tells when the draft changed since, and undeploys', async () => {
    // Prepare
    const tenant = await service.newTenant('deploy');
    const id = await draftWorkflow(tenant);

    // Act
    const before = await tenant.call('GET', `/api/workflows/${id}/status`);
    const deployed = await tenant.call('POST', `/api/workflows/${id}/deploy`);
    const after = await tenant.call('GET', `/api/workflows/${id}/status`);
    await tenant.call('PUT', `/api/workflows/${id}`, { state: threeBlockGraph({ code: 'return 1;' }) });
    const edited = await tenant.call('GET', `/api/workflows/${id}/status`);
    const undeployed = await tenant.call('POST', `/api/workflows/${id}/undeploy`);
    const last = await tenant.call('GET', `/api/workflows/${id}/status`);

    // Assess
    expect(before.body).toEqual({ isDeployed: false, needsRedeployment: false });
    expect(deployed.status).toBe(200);
    expect(after.body).toEqual({
      isDeployed: true,
      deployedAt: expect.any(String),
      needsRedeployment: false,
    });
    expect(edited.body).toMatchObject({ isDeployed: true, needsRedeployment: true });
    expect(undeployed.status).toBe(200);
    expect(last.body).toMatchObject({ isDeployed: false });
  });

  it('refuses to execute a workflow that is not deployed with 403 FORBIDDEN', async () => {
    // Prepare
    const tenant = await service.newTenant('undeployed');
    const id = await draftWorkflow(tenant);

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Assess
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('FORBIDDEN');
  });

  it("answers 404 for another tenant's workflow, as if it did not exist", async () => {
    // Prepare
    const owner = await service.newTenant('owner');
    const stranger = await service.newTenant('stranger');
    const id = await draftWorkflow(owner);

    // Act
    const read = await stranger.call('GET', `/api/workflows/${id}`);
    const deploy = await stranger.call('POST', `/api/workflows/${id}/deploy`);

    // Assess
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('NOT_FOUND');
    expect(deploy.status).toBe(404);
  });

  it('refuses a graph whose edge names a missing block with 400 VALIDATION_ERROR', async () => {
    // Prepare
    const tenant = await service.newTenant('invalid');
    const state = threeBlockGraph();
    state.edges.push({ id: 'bad', source: 'respond', target: 'nowhere', sourceHandle: 'source' });

    // Act
    const answer = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Broken',
      state,
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
  });
});
