/** The local stack's dynalite (local/stack/dynamodb.ts) as its integration tests reach it: over HTTP, through the SDK. */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { RunningDynamoDb } from '../../local/stack/dynamodb';

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
