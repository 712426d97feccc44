import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoEnvironmentStore } from '../../../adapters/dynamodb/environment-store';
import { DynamoIdentityStore } from '../../../adapters/dynamodb/identity-store';
import type { EnvironmentVariableRecord } from '../../../core/environment/types';
import { type LocalDynamoDb, startLocalDynamoDb } from '../dynamodb/local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoEnvironmentStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoEnvironmentStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
});
afterAll(async () => {
  await dynamo.stop();
});

const record = (
  workspaceId: string,
  name: string,
  ciphertext = `env1.file.${name}`,
): EnvironmentVariableRecord => ({
  workspaceId,
  name,
  ciphertext,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
  updatedBy: 'usr_1',
});

describe('DynamoEnvironmentStore on dynalite', () => {
  it('puts, replaces, reads, lists by name, counts and deletes', async () => {
    await store.putVariable(record('ws_s1', 'ZETA'));
    await store.putVariable(record('ws_s1', 'ALPHA'));
    await store.putVariable(record('ws_s1', 'ALPHA', 'env1.file.replaced'));
    expect(await store.getVariable('ws_s1', 'ALPHA')).toEqual(record('ws_s1', 'ALPHA', 'env1.file.replaced'));
    expect((await store.listVariables('ws_s1')).map((item) => item.name)).toEqual(['ALPHA', 'ZETA']);
    expect(await store.countVariables('ws_s1')).toBe(2);
    expect(await store.deleteVariable('ws_s1', 'ZETA')).toEqual(record('ws_s1', 'ZETA'));
    expect(await store.deleteVariable('ws_s1', 'ZETA')).toBeUndefined();
    expect(await store.getVariable('ws_s1', 'ZETA')).toBeUndefined();
    expect(await store.countVariables('ws_s1')).toBe(1);
  });

  it('keeps each workspace to itself and shares the partition with members without mixing them', async () => {
    const identity = new DynamoIdentityStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
    await identity.createWorkspace(
      { id: 'ws_s2', name: 'Two', ownerId: 'usr_1', createdAt: '2030-01-01T00:00:00.000Z' },
      { workspaceId: 'ws_s2', userId: 'usr_1', permissions: 'admin' },
    );
    await store.putVariable(record('ws_s2', 'ONLY_TWO'));
    await store.putVariable(record('ws_s3', 'ONLY_THREE'));
    expect((await store.listVariables('ws_s2')).map((item) => item.name)).toEqual(['ONLY_TWO']);
    expect(await store.countVariables('ws_s2')).toBe(1);
    expect(await identity.listWorkspaceMembers('ws_s2')).toHaveLength(1);
    expect(await identity.getWorkspace('ws_s2')).toMatchObject({ name: 'Two' });
  });

  it('lists past one page of results (items near the 64 KB value limit)', async () => {
    const big = 'x'.repeat(90 * 1024);
    for (let index = 0; index < 14; index++) {
      await store.putVariable(record('ws_big', `V${String(index).padStart(2, '0')}`, big));
    }
    expect(await store.listVariables('ws_big')).toHaveLength(14);
    expect(await store.countVariables('ws_big')).toBe(14);
  });
});
