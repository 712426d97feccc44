import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../adapters/aws/dynamodb-client';
import { threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService();

describe('tenant isolation', () => {
  it('hides everything of workspace B from a key of workspace A behind 404s', async () => {
    const alice = await service.get().newTenant('alice');
    const bob = await service.get().newTenant('bob');
    const { body } = await bob.call('POST', '/api/workflows', {
      workspaceId: bob.workspaceId,
      name: 'Secret',
      state: threeBlockGraph(),
    });
    const bobsWorkflow = body.data.id;
    await bob.call('POST', `/api/workflows/${bobsWorkflow}/deploy`);

    const attempts = [
      await alice.call('GET', `/api/workflows/${bobsWorkflow}`),
      await alice.call('GET', `/api/workflows/${bobsWorkflow}/status`),
      await alice.call('PUT', `/api/workflows/${bobsWorkflow}`, { name: 'Stolen' }),
      await alice.call('DELETE', `/api/workflows/${bobsWorkflow}`),
      await alice.call('POST', `/api/workflows/${bobsWorkflow}/deploy`),
      await alice.call('POST', `/api/workflows/${bobsWorkflow}/undeploy`),
      await alice.call('POST', `/api/workflows/${bobsWorkflow}/execute`, { name: 'x' }),
      await alice.call('GET', `/api/workflows?workspaceId=${bob.workspaceId}`),
      await alice.call('GET', `/api/workspaces/${bob.workspaceId}`),
      await alice.call('POST', '/api/workflows', { workspaceId: bob.workspaceId, name: 'Planted' }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(404);
      expect(attempt.body.code).toBe('NOT_FOUND');
    }
    const stillThere = await bob.call('GET', `/api/workflows/${bobsWorkflow}`);
    expect(stillThere.body.data).toMatchObject({ name: 'Secret', isDeployed: true });
  });

  it('lists only the workspaces the key user belongs to', async () => {
    const alice = await service.get().newTenant('alice');
    await service.get().newTenant('bob');
    const listed = await alice.call('GET', '/api/workspaces');
    expect(listed.body.data.map((workspace: any) => workspace.id)).toEqual([alice.workspaceId]);
  });
});

describe('API keys', () => {
  it('stores no key in clear anywhere in the database', async () => {
    const tenant = await service.get().newTenant('keyholder');
    const extra = await tenant.call('POST', '/api/users/me/api-keys', { name: 'second' });
    const items = await dynamoDocumentClient().send(
      new ScanCommand({ TableName: process.env.ENTITIES_TABLE }),
    );
    const dump = JSON.stringify(items.Items);
    expect(dump).not.toContain(tenant.apiKey);
    expect(dump).not.toContain(extra.body.data.key);
    expect(dump).toContain(extra.body.data.prefix);
  });

  it('lists the caller keys with prefixes and never the key or hash', async () => {
    const tenant = await service.get().newTenant('keyholder');
    const listed = await tenant.call('GET', '/api/users/me/api-keys');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].key).toBeUndefined();
    expect(listed.body.data[0].hash).toBeUndefined();
    expect(tenant.apiKey.startsWith(listed.body.data[0].prefix)).toBe(true);
  });

  it('revokes a key, which then gets 401', async () => {
    const tenant = await service.get().newTenant('keyholder');
    const second = await tenant.call('POST', '/api/users/me/api-keys', { name: 'temporary' });
    const revoked = await tenant.call('DELETE', `/api/users/me/api-keys/${second.body.data.id}`);
    expect(revoked.status).toBe(200);
    expect((await service.get().as(second.body.data.key)('GET', '/api/workspaces')).status).toBe(401);
    expect((await tenant.call('GET', '/api/workspaces')).status).toBe(200);
  });

  it("answers 404 when revoking another user's key and leaves it working", async () => {
    const alice = await service.get().newTenant('alice');
    const bob = await service.get().newTenant('bob');
    const bobsKeys = await bob.call('GET', '/api/users/me/api-keys');
    const answer = await alice.call('DELETE', `/api/users/me/api-keys/${bobsKeys.body.data[0].id}`);
    expect(answer.status).toBe(404);
    expect((await bob.call('GET', '/api/workspaces')).status).toBe(200);
  });
});
