import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../adapters/aws/dynamodb-client';
import { request, type Tenant, useLocalService } from '../../support/service';

const service = useLocalService();

/** A second user added to `owner`'s workspace with the given permissions. */
async function memberOf(owner: Tenant, permissions: 'read' | 'write' | 'admin'): Promise<Tenant> {
  const member = await service.get().newTenant(`${permissions}-member`);
  const added = await service.get().admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
    userId: member.userId,
    permissions,
  });
  expect(added.status).toBe(200);
  return { ...member, workspaceId: owner.workspaceId };
}

const envPath = (workspaceId: string, name?: string) =>
  `/api/workspaces/${workspaceId}/environment${name === undefined ? '' : `/${name}`}`;

describe('workspace environment variables API', () => {
  it('sets, replaces and lists variables with their values for a write member', async () => {
    const owner = await service.get().newTenant('env-owner');
    const writer = await memberOf(owner, 'write');

    const created = await writer.call('PUT', envPath(owner.workspaceId, 'OPENAI_API_KEY'), {
      value: 'sk-first-1',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      name: 'OPENAI_API_KEY',
      updatedAt: expect.any(String),
      updatedBy: writer.userId,
    });
    const replaced = await owner.call('PUT', envPath(owner.workspaceId, 'OPENAI_API_KEY'), {
      value: 'sk-second-2',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.updatedBy).toBe(owner.userId);
    await owner.call('PUT', envPath(owner.workspaceId, 'BASE_URL'), { value: 'https://api.example.com' });

    for (const who of [writer, owner]) {
      const listed = await who.call('GET', envPath(owner.workspaceId));
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual([
        {
          name: 'BASE_URL',
          value: 'https://api.example.com',
          updatedAt: expect.any(String),
          updatedBy: owner.userId,
        },
        {
          name: 'OPENAI_API_KEY',
          value: 'sk-second-2',
          updatedAt: expect.any(String),
          updatedBy: owner.userId,
        },
      ]);
    }
  });

  it('lists names without values for a read member, who may not write or delete (403)', async () => {
    const owner = await service.get().newTenant('env-owner');
    const reader = await memberOf(owner, 'read');
    await owner.call('PUT', envPath(owner.workspaceId, 'TOKEN'), { value: 'tok-secret-123' });

    const listed = await reader.call('GET', envPath(owner.workspaceId));
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      { name: 'TOKEN', updatedAt: expect.any(String), updatedBy: owner.userId },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('tok-secret-123');

    const put = await reader.call('PUT', envPath(owner.workspaceId, 'TOKEN'), { value: 'overwritten' });
    expect(put.status).toBe(403);
    expect(put.body.code).toBe('FORBIDDEN');
    const deleted = await reader.call('DELETE', envPath(owner.workspaceId, 'TOKEN'));
    expect(deleted.status).toBe(403);
    const still = await owner.call('GET', envPath(owner.workspaceId));
    expect(still.body.data[0].value).toBe('tok-secret-123');
  });

  it('deletes a variable, then answers 404 for it', async () => {
    const owner = await service.get().newTenant('env-owner');
    await owner.call('PUT', envPath(owner.workspaceId, 'GONE_SOON'), { value: 'bye-bye' });
    const deleted = await owner.call('DELETE', envPath(owner.workspaceId, 'GONE_SOON'));
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ name: 'GONE_SOON' });
    expect(deleted.body.data.value).toBeUndefined();
    expect((await owner.call('GET', envPath(owner.workspaceId))).body.data).toEqual([]);

    const again = await owner.call('DELETE', envPath(owner.workspaceId, 'GONE_SOON'));
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('NOT_FOUND');
    expect((await owner.call('DELETE', envPath(owner.workspaceId, 'NEVER_SET'))).status).toBe(404);
  });

  it("hides another tenant's environment behind 404s", async () => {
    const alice = await service.get().newTenant('alice');
    const bob = await service.get().newTenant('bob');
    await bob.call('PUT', envPath(bob.workspaceId, 'BOB_SECRET'), { value: 'bobs-value' });

    const attempts = [
      await alice.call('GET', envPath(bob.workspaceId)),
      await alice.call('PUT', envPath(bob.workspaceId, 'BOB_SECRET'), { value: 'stolen' }),
      await alice.call('PUT', envPath(bob.workspaceId, 'PLANTED'), { value: 'planted' }),
      await alice.call('DELETE', envPath(bob.workspaceId, 'BOB_SECRET')),
      await alice.call('GET', envPath('ws_does_not_exist')),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(404);
      expect(attempt.body.code).toBe('NOT_FOUND');
      expect(JSON.stringify(attempt.body)).not.toContain('bobs-value');
    }
    const bobs = await bob.call('GET', envPath(bob.workspaceId));
    expect(bobs.body.data).toEqual([expect.objectContaining({ name: 'BOB_SECRET', value: 'bobs-value' })]);
  });

  it('refuses a bad name with 400 naming the field', async () => {
    const owner = await service.get().newTenant('env-owner');
    for (const name of [
      'lower_case',
      '1LEADING_DIGIT',
      'DASH-ED',
      'A'.repeat(129),
      encodeURIComponent('SP ACE'),
    ]) {
      const answer = await owner.call('PUT', envPath(owner.workspaceId, name), { value: 'v' });
      expect(answer.status, name).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect(answer.body.details[0].path).toBe('name');
      expect(answer.body.error).toContain('"name"');
    }
    const deleted = await owner.call('DELETE', envPath(owner.workspaceId, 'bad-name'));
    expect(deleted.status).toBe(400);
    expect(deleted.body.details[0].path).toBe('name');
  });

  it('refuses a missing, non-string or too large value with 400 naming value', async () => {
    const owner = await service.get().newTenant('env-owner');
    for (const body of [
      {},
      { value: 42 },
      { value: 'x'.repeat(64 * 1024 + 1) },
      { value: '€'.repeat(21_846) },
    ]) {
      const answer = await owner.call('PUT', envPath(owner.workspaceId, 'BIG'), body);
      expect(answer.status).toBe(400);
      expect(answer.body.details[0].path).toBe('value');
    }
    const limit = await owner.call('PUT', envPath(owner.workspaceId, 'BIG'), {
      value: 'x'.repeat(64 * 1024),
    });
    expect(limit.status).toBe(201);
  });

  it('keeps no value in clear anywhere in the entities table', async () => {
    const owner = await service.get().newTenant('env-owner');
    const values = ['plain-needle-4f2a9c', 'ünïcødé-needle-✓', `long-needle-${'z'.repeat(5000)}`];
    for (const [index, value] of values.entries()) {
      expect((await owner.call('PUT', envPath(owner.workspaceId, `NEEDLE_${index}`), { value })).status).toBe(
        201,
      );
    }
    const items = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamoDocumentClient().send(
        new ScanCommand({ TableName: process.env.ENTITIES_TABLE, ExclusiveStartKey: startKey }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    const dump = JSON.stringify(items);
    expect(dump).toContain(`ENV#NEEDLE_0`);
    for (const value of values) {
      expect(dump).not.toContain(value);
      expect(dump).not.toContain(Buffer.from(value).toString('base64'));
      expect(dump).not.toContain(Buffer.from(value).toString('base64url'));
    }
    const stored = items.filter((item) => String(item.sk).startsWith('ENV#NEEDLE_'));
    expect(stored).toHaveLength(3);
    for (const item of stored) {
      expect(Object.keys(item).sort()).toEqual(
        ['ciphertext', 'createdAt', 'name', 'pk', 'sk', 'updatedAt', 'updatedBy', 'workspaceId'].sort(),
      );
      expect(String(item.ciphertext).startsWith('env1.file.')).toBe(true);
    }
  });

  it('is in the OpenAPI document', async () => {
    const answer = await request(service.get().url, 'GET', '/api/openapi.json');
    const path = answer.body.paths['/api/workspaces/{workspaceId}/environment/{name}'];
    expect(path.put.operationId).toBe('putEnvironmentVariable');
    expect(path.delete.operationId).toBe('deleteEnvironmentVariable');
    expect(answer.body.components.schemas.EnvironmentVariable).toBeDefined();
  });
});
