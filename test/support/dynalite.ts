/** The local emulators' dynalite (local/emulators/dynamodb.ts) as its integration tests reach it: over HTTP, through the SDK. */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type RunningDynamoDb, startDynamoDb } from '../../local/emulators/dynamodb';

/** A client of the emulator over HTTP. */
export function dynaliteClientOf(dynamodb: RunningDynamoDb): DynamoDBClient {
  return new DynamoDBClient({
    region: 'us-east-1',
    endpoint: dynamodb.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Creates a table and waits for it: dynalite answers CreateTable while the table is CREATING, and makes it ACTIVE right after. */
export async function createActiveTable(
  client: DynamoDBClient,
  input: CreateTableCommandInput,
): Promise<void> {
  await client.send(new CreateTableCommand(input));
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: input.TableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
  }
}

/**
 * Deletes a table and waits until it is gone: dynalite answers DeleteTable while the table is
 * DELETING and removes it a moment later, so a CreateTable of the same name sent at once can still
 * find it (ResourceInUseException) on a busy machine. Gives up after `attempts` looks, leaving what
 * follows to fail, so a table that is never forgotten fails the test rather than hanging it.
 */
export async function deleteGoneTable(
  client: DynamoDBClient,
  TableName: string,
  attempts = 200,
): Promise<void> {
  await client.send(new DeleteTableCommand({ TableName }));
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      await client.send(new DescribeTableCommand({ TableName }));
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return;
      throw error;
    }
  }
}

/** The emulator of a `describe` block, on a data dir of its own, as `useDynalite` keeps it. */
export interface TestDynalite {
  readonly dynamodb: RunningDynamoDb;
  readonly client: DynamoDBClient;
  /** Stops the emulator and starts it again on the same data dir, with a new client. */
  restart(): Promise<void>;
}

/**
 * The emulator started before the block's tests (then `setup`, given its client) and stopped,
 * with its data dir removed, after them.
 */
export function useDynalite(
  dataDirPrefix: string,
  setup?: (client: DynamoDBClient) => Promise<void>,
): TestDynalite {
  let dataDir = '';
  let dynamodb: RunningDynamoDb | undefined;
  let client: DynamoDBClient | undefined;
  const start = async () => {
    dynamodb = await startDynamoDb(dataDir, '127.0.0.1');
    client = dynaliteClientOf(dynamodb);
  };
  const stop = async () => {
    client?.destroy();
    await dynamodb?.stop();
  };
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), dataDirPrefix));
    await start();
    await setup?.(client as DynamoDBClient);
  });
  afterAll(async () => {
    await stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    get dynamodb() {
      if (!dynamodb) throw new Error('The emulator starts before the tests');
      return dynamodb;
    },
    get client() {
      if (!client) throw new Error('The emulator starts before the tests');
      return client;
    },
    async restart() {
      await stop();
      await start();
    },
  };
}
