import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, expect, test } from 'vitest';
import { DynamoEnvironmentStore } from '../../../adapters/dynamodb/environment-store';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(client);
const store = new DynamoEnvironmentStore({ client, tableName: 'entities' });

afterEach(() => {
  dynamo.reset();
});

const record = {
  workspaceId: 'ws_1',
  name: 'API_KEY',
  ciphertext: 'env1.kms.a.b.c.d',
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
  updatedBy: 'usr_1',
};

test('a variable is one item in the workspace partition, under ENV#<NAME>', async () => {
  dynamo.on(PutCommand).resolves({});
  await store.putVariable(record);
  expect(dynamo.commandCalls(PutCommand)[0].args[0].input).toEqual({
    TableName: 'entities',
    Item: { ...record, pk: 'WS#ws_1', sk: 'ENV#API_KEY' },
  });
});

test('reads are consistent key lookups and Queries on the partition; no Scan', async () => {
  dynamo.on(GetCommand).resolves({ Item: { ...record, pk: 'WS#ws_1', sk: 'ENV#API_KEY' } });
  dynamo.on(QueryCommand).resolves({ Items: [{ ...record, pk: 'WS#ws_1', sk: 'ENV#API_KEY' }], Count: 1 });
  dynamo.on(DeleteCommand).resolves({ Attributes: { ...record, pk: 'WS#ws_1', sk: 'ENV#API_KEY' } });

  expect(await store.getVariable('ws_1', 'API_KEY')).toEqual(record);
  expect(await store.listVariables('ws_1')).toEqual([record]);
  expect(await store.countVariables('ws_1')).toBe(1);
  expect(await store.deleteVariable('ws_1', 'API_KEY')).toEqual(record);

  expect(dynamo.commandCalls(GetCommand)[0].args[0].input).toEqual({
    TableName: 'entities',
    Key: { pk: 'WS#ws_1', sk: 'ENV#API_KEY' },
    ConsistentRead: true,
  });
  const [list, count] = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
  for (const query of [list, count]) {
    expect(query).toMatchObject({
      TableName: 'entities',
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': 'WS#ws_1', ':prefix': 'ENV#' },
    });
    expect(query.IndexName).toBeUndefined();
  }
  expect(count.Select).toBe('COUNT');
  expect(dynamo.commandCalls(DeleteCommand)[0].args[0].input).toMatchObject({
    Key: { pk: 'WS#ws_1', sk: 'ENV#API_KEY' },
    ReturnValues: 'ALL_OLD',
  });
  expect(dynamo.commandCalls(ScanCommand)).toHaveLength(0);
});

test('counting follows pages', async () => {
  dynamo
    .on(QueryCommand)
    .resolvesOnce({ Count: 150, LastEvaluatedKey: { pk: 'WS#ws_1', sk: 'ENV#M' } })
    .resolvesOnce({ Count: 30 });
  expect(await store.countVariables('ws_1')).toBe(180);
  expect(dynamo.commandCalls(QueryCommand)[1].args[0].input.ExclusiveStartKey).toEqual({
    pk: 'WS#ws_1',
    sk: 'ENV#M',
  });
});

test('an absent variable is undefined on get and delete', async () => {
  dynamo.on(GetCommand).resolves({});
  dynamo.on(DeleteCommand).resolves({});
  expect(await store.getVariable('ws_1', 'NOPE')).toBeUndefined();
  expect(await store.deleteVariable('ws_1', 'NOPE')).toBeUndefined();
});
