/**
 * The catalog's tables and queues in the local emulators, created through the real AWS SDK
 * clients if absent. Apart from the emulators' modules (./dynamodb.ts, ./sqs.ts), so that the
 * emulator thread, which never creates a resource, does not load the SDK clients.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  QueueNameExists,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { sqsMessageLimitInBytes } from './aws-limits';
import { queues, tables } from '../../catalog/resources';

/** Retention of the dead-letter queues: SQS's maximum, 14 days. */
const DLQ_RETENTION_SECONDS = '1209600';

/** Creates every catalog table (with its GSIs) that does not exist yet; checks the ones that do. */
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
            `Local table ${name} lacks index(es) ${missing.join(', ')}: the data dir predates the catalog; move it away to start afresh`,
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

/**
 * fauxqs makes its queues take 1 MiB messages, the most SQS allows since 2025; the local queues
 * refuse messages over the 256 KiB that was SQS's limit for years (./aws-limits.ts), so nothing
 * the service sends comes to rely on a queue set to take more.
 */
const maximumMessageSize = String(sqsMessageLimitInBytes);

/** Creates the catalog queues and their DLQs (if absent) and answers every queue's URL by name. */
export async function ensureQueues(client: SQSClient): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  await Promise.all(
    Object.entries(queues).map(async ([name, queue]) => {
      const dlqName = `${name}-dlq`;
      const dlqUrl = await createOrUpdateQueue(client, dlqName, {
        MessageRetentionPeriod: DLQ_RETENTION_SECONDS,
        MaximumMessageSize: maximumMessageSize,
      });
      const dlqAttributes = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
      );
      const deadLetterTargetArn = dlqAttributes.Attributes?.QueueArn;
      if (!deadLetterTargetArn) throw new Error(`Local queue ${dlqName} has no ARN`);
      urls[dlqName] = dlqUrl;
      urls[name] = await createOrUpdateQueue(client, name, {
        VisibilityTimeout: String(queue.visibilityTimeoutInSeconds),
        MaximumMessageSize: maximumMessageSize,
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn, maxReceiveCount: queue.maxReceiveCount }),
      });
    }),
  );
  return urls;
}

/** CreateQueue is idempotent for equal attributes; a queue kept from an older catalog is brought up to date. */
async function createOrUpdateQueue(client: SQSClient, name: string, attributes: Record<string, string>) {
  try {
    const created = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
    return created.QueueUrl!;
  } catch (error) {
    if (!(error instanceof QueueNameExists)) throw error;
    const existing = await client.send(new CreateQueueCommand({ QueueName: name }));
    await client.send(
      new SetQueueAttributesCommand({ QueueUrl: existing.QueueUrl!, Attributes: attributes }),
    );
    return existing.QueueUrl!;
  }
}
