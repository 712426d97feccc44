/**
 * DynamoDB API of the local stack: dynalite on a LevelDB store under the data dir, and the catalogue's
 * tables created through the real AWS SDK client. dynalite@4 has no TransactWriteItems and no TTL.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import type { RequestListener } from 'node:http';
import dynalite from 'dynalite';
import { tables } from '../../catalog/resources';
import { type TableCacheCounts, withTableCache } from './dynalite-caches';
import { closeServer, httpUrl, listenEphemeral, type RunningService } from './http-server';

export interface RunningDynamoDb extends RunningService {
  /** dynalite's HTTP request listener, for callers that hand it requests without a socket. */
  listener: RequestListener;
  /** How often dynalite's item calls found their table's description in its cache (dynalite-caches.ts). */
  tableCache: TableCacheCounts;
}

export async function startDynamoDb(path: string, host: string): Promise<RunningDynamoDb> {
  // Tables become ACTIVE at once instead of after dynalite's default 500 ms.
  const { started: server, counts } = withTableCache(() =>
    dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }),
  );
  const port = await listenEphemeral(server, host);
  const endpoint = httpUrl(host, port);
  return {
    endpoint,
    listener: server.listeners('request')[0] as RequestListener,
    tableCache: counts,
    stop: () => {
      // dynalite's own close stops the HTTP server, then closes LevelDB, which releases its LOCK file.
      return closeServer(server, (done) => server.close(done));
    },
  };
}

/** Creates every catalogue table (with its GSIs) that does not exist yet; checks the ones that do. */
export async function ensureTables(client: DynamoDBClient): Promise<void> {
  await Promise.all(
    Object.entries(tables).map(async ([name, table]) => {
      const existing = await describe(client, name);
      if (existing) {
        const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
        const missing = table.indexes.filter((index) => !present.has(index.name)).map((index) => index.name);
        // dynalite cannot add a GSI to an existing table, so a stale data dir is an error, not a silent gap.
        if (missing.length > 0) {
          throw new Error(
            `Local table ${name} lacks index(es) ${missing.join(', ')}: the data dir predates the catalogue; move it away to start afresh`,
          );
        }
        if (existing.TableStatus === 'ACTIVE') return;
      } else {
        const keyNames = new Set<string>([table.partitionKey, table.sortKey]);
        for (const index of table.indexes) {
          keyNames.add(index.partitionKey);
          keyNames.add(index.sortKey);
        }
        await client.send(
          new CreateTableCommand({
            TableName: name,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [...keyNames].map((AttributeName) => ({
              AttributeName,
              AttributeType: 'S',
            })),
            KeySchema: [
              { AttributeName: table.partitionKey, KeyType: 'HASH' },
              { AttributeName: table.sortKey, KeyType: 'RANGE' },
            ],
            // DynamoDB refuses an empty list: a table without indexes names none.
            GlobalSecondaryIndexes:
              table.indexes.length === 0
                ? undefined
                : table.indexes.map((index) => ({
                    IndexName: index.name,
                    KeySchema: [
                      { AttributeName: index.partitionKey, KeyType: 'HASH' },
                      { AttributeName: index.sortKey, KeyType: 'RANGE' },
                    ],
                    Projection:
                      'projection' in index
                        ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] }
                        : { ProjectionType: 'ALL' },
                  })),
          }),
        );
      }
      await waitUntilActive(client, name);
    }),
  );
}

async function describe(client: DynamoDBClient, name: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

async function waitUntilActive(client: DynamoDBClient, name: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const table = await describe(client, name);
    if (table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`Local table ${name} did not become ACTIVE`);
}
