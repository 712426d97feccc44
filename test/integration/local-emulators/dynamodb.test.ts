import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../adapters/aws/dynamodb-client';
import { tables } from '../../../catalog/resources';
import { useLocalEmulators } from '../../support/local-emulators';

describe('local emulators: DynamoDB', () => {
  const stack = useLocalEmulators();

  it('creates every catalog table with its key schema and GSIs', async () => {
    // Prepare
    const client = new DynamoDBClient({ region: 'us-east-1', endpoint: stack().endpoints.dynamodb });

    for (const [name, table] of Object.entries(tables)) {
      // Act
      const { Table } = await client.send(new DescribeTableCommand({ TableName: stack().env[table.envVar] }));

      // Assess
      expect(Table?.TableName).toBe(name);
      expect(Table?.TableStatus).toBe('ACTIVE');
      expect(Table?.KeySchema).toEqual([
        { AttributeName: table.partitionKey, KeyType: 'HASH' },
        { AttributeName: table.sortKey, KeyType: 'RANGE' },
      ]);
      const indexes = Object.fromEntries(
        (Table?.GlobalSecondaryIndexes ?? []).map((index) => [index.IndexName, index.KeySchema]),
      );
      expect(indexes).toEqual(
        Object.fromEntries(
          table.indexes.map((index) => [
            index.name,
            [
              { AttributeName: index.partitionKey, KeyType: 'HASH' },
              { AttributeName: index.sortKey, KeyType: 'RANGE' },
            ],
          ]),
        ),
      );
    }
    client.destroy();
  });

  it('puts, gets and queries a GSI through the document client', async () => {
    // Prepare
    const documents = dynamoDocumentClient();
    const TableName = process.env.ENTITIES_TABLE;
    await documents.send(
      new PutCommand({
        TableName,
        Item: { pk: 'USER#1', sk: 'PROFILE', gsi1pk: 'EMAIL#a@example.com', gsi1sk: 'USER#1', name: 'Ada' },
      }),
    );
    await documents.send(
      new PutCommand({
        TableName,
        Item: { pk: 'USER#2', sk: 'PROFILE', gsi1pk: 'EMAIL#b@example.com', gsi1sk: 'USER#2', name: 'Bob' },
      }),
    );

    // Act
    const got = await documents.send(new GetCommand({ TableName, Key: { pk: 'USER#1', sk: 'PROFILE' } }));
    const queried = await documents.send(
      new QueryCommand({
        TableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': 'EMAIL#b@example.com' },
      }),
    );

    // Assess
    expect(got.Item?.name).toBe('Ada');
    expect(queried.Items?.map((item) => item.name)).toEqual(['Bob']);
  });

  it('keeps each table separate', async () => {
    // Prepare
    const documents = dynamoDocumentClient();
    await documents.send(
      new PutCommand({
        TableName: process.env.EXECUTIONS_TABLE,
        Item: { pk: 'EXEC#1', sk: 'LOG', workflowShard: 'WF#1#0', position: '1', id: 'log_1', secret: 'x' },
      }),
    );

    // Act
    const inEntities = await documents.send(
      new GetCommand({ TableName: process.env.ENTITIES_TABLE, Key: { pk: 'EXEC#1', sk: 'LOG' } }),
    );
    const byIndex = await documents.send(
      new QueryCommand({
        TableName: process.env.EXECUTIONS_TABLE,
        IndexName: 'workflowLog',
        KeyConditionExpression: 'workflowShard = :pk',
        ExpressionAttributeValues: { ':pk': 'WF#1#0' },
      }),
    );

    // Assess
    expect(inEntities.Item).toBeUndefined();
    // The log indexes copy only the summary attributes, as in AWS.
    expect(byIndex.Items).toEqual([
      { pk: 'EXEC#1', sk: 'LOG', workflowShard: 'WF#1#0', position: '1', id: 'log_1' },
    ]);
  });
});

describe("local emulators: DynamoDB: the 400 KB item limit (dynalite's own)", () => {
  useLocalEmulators();

  it('refuses an item over 400 KB naming the item size, and takes one of 390 KB', async () => {
    // Prepare
    const documents = dynamoDocumentClient();
    const TableName = process.env.EXECUTIONS_TABLE;

    // Act
    const refused = await documents
      .send(new PutCommand({ TableName, Item: { pk: 'BIG#1', sk: 'ITEM', data: 'x'.repeat(410 * 1024) } }))
      .catch((error: unknown) => error);
    await documents.send(
      new PutCommand({ TableName, Item: { pk: 'BIG#2', sk: 'ITEM', data: 'x'.repeat(390 * 1024) } }),
    );
    const kept = await documents.send(new GetCommand({ TableName, Key: { pk: 'BIG#2', sk: 'ITEM' } }));

    // Assess
    expect(refused).toMatchObject({ message: 'Item size has exceeded the maximum allowed size' });
    expect(String(kept.Item?.data).length).toBe(390 * 1024);
  });
});
