/**
 * A private dynalite (the DynamoDB API, in memory, on loopback) with the catalogue's two tables,
 * reached through the real AWS SDK, plus an in-memory blob store for the S3-pointer cases.
 */
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  type GetItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { tables } from '../../../catalog/resources';
import type { JsonBlobStore } from '../../../adapters/dynamodb/shared';

export interface LocalDynamoDb {
  endpoint: string;
  client: DynamoDBDocumentClient;
  /** Table names, as the catalogue names them. */
  entitiesTable: string;
  executionsTable: string;
  /** The raw stored item (key attributes included), or undefined. */
  rawItem(tableName: string, pk: string, sk: string): Promise<GetItemCommandOutput['Item']>;
  stop(): Promise<void>;
}

export async function startLocalDynamoDb(): Promise<LocalDynamoDb> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const raw = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const client = DynamoDBDocumentClient.from(raw, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  for (const [name, table] of Object.entries(tables)) await createTable(raw, name, table);
  return {
    endpoint,
    client,
    entitiesTable: 'entities',
    executionsTable: 'executions',
    async rawItem(tableName, pk, sk) {
      const result = await raw.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { pk: { S: pk }, sk: { S: sk } },
          ConsistentRead: true,
        }),
      );
      return result.Item;
    },
    async stop() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function createTable(
  raw: DynamoDBClient,
  name: string,
  table: (typeof tables)[keyof typeof tables],
): Promise<void> {
  const keyNames = new Set<string>([table.partitionKey, table.sortKey]);
  for (const index of table.indexes) {
    keyNames.add(index.partitionKey);
    keyNames.add(index.sortKey);
  }
  await raw.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...keyNames].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: table.partitionKey, KeyType: 'HASH' },
        { AttributeName: table.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: table.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: name }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every(
      (index) => index.IndexStatus === 'ACTIVE',
    );
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Table ${name} did not become active`);
}

/** A blob store in memory; values are kept serialized, as S3 would keep them. */
export class MemoryBlobStore implements JsonBlobStore {
  readonly objects = new Map<string, string>();

  async putJson(key: string, value: unknown): Promise<void> {
    this.objects.set(key, JSON.stringify(value));
  }

  async getJson<T>(key: string): Promise<T> {
    const body = this.objects.get(key);
    if (body === undefined) throw new Error(`No blob ${key}`);
    return JSON.parse(body) as T;
  }
}

/** A string of about `bytes` bytes, for payloads that must not fit in an item. */
export function bulk(bytes: number): string {
  return 'x'.repeat(bytes);
}
