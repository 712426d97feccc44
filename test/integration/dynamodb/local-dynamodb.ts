/**
 * A private dynalite (the DynamoDB API, in memory, on loopback) with the catalog's tables,
 * reached through the real AWS SDK, plus an in-memory blob store for the S3-pointer cases.
 */
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand, type GetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { ensureTables } from '../../../local/emulators/catalog-resources';
import type { JsonBlobStore } from '../../../adapters/dynamodb/dynamo-table';

export interface LocalDynamoDb {
  endpoint: string;
  client: DynamoDBDocumentClient;
  /** Table names, as the catalog names them. */
  entitiesTable: string;
  executionsTable: string;
  limitsTable: string;
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
  await ensureTables(raw);
  return {
    endpoint,
    client,
    entitiesTable: 'entities',
    executionsTable: 'executions',
    limitsTable: 'limits',
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

/** A blob store in memory; values are kept serialized, as S3 would keep them. */
export class MemoryBlobStore implements JsonBlobStore {
  readonly objects = new Map<string, string>();

  async putJson(key: string, value: unknown): Promise<void> {
    this.objects.set(key, JSON.stringify(value));
  }

  async putJsonText(key: string, json: string): Promise<void> {
    this.objects.set(key, json);
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
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
