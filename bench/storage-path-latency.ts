/**
 * `tsx bench/storage-path-latency.ts [loops]`: the storage calls on a sync run's path (the rate-limit
 * UpdateItem, the log entry's PutItem, the completion event's SendMessage), one after the other
 * through the service's own clients against a fresh local stack: the latency of each trio (p50,
 * p90) and the process's CPU per trio (every thread of it, the emulators' included).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient, sqsClient } from '../adapters/aws/clients';
import { applyEnv, startLocalStack } from '../local/stack';

const loops = Number(process.argv[2] ?? 2000);
const dataDir = await mkdtemp(join(tmpdir(), 'bench-storage-calls-'));
const stack = await startLocalStack({ dataDir });
applyEnv(stack.env);
const table = stack.env.ENTITIES_TABLE;
const documents = dynamoDocumentClient();
const sqs = sqsClient();

async function trio(n: number) {
  await documents.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk: 'BENCH#limit', sk: 'TOKENS' },
      UpdateExpression: 'SET tokens = if_not_exists(tokens, :zero) + :one, updatedAt = :now',
      ConditionExpression: 'attribute_not_exists(tokens) OR tokens < :max',
      ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':now': Date.now(), ':max': 1e12 },
    }),
  );
  await documents.send(
    new PutCommand({
      TableName: table,
      Item: { pk: 'BENCH#log', sk: `RUN#${n}`, status: 'succeeded', output: { greeting: 'Hello, bench!' } },
    }),
  );
  await sqs.send(
    new SendMessageCommand({ QueueUrl: stack.env.NOTIFICATIONS_QUEUE_URL, MessageBody: `{"run":${n}}` }),
  );
}

try {
  for (let n = 0; n < Math.min(300, loops); n++) await trio(-n);
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let n = 0; n < loops; n++) {
    const at = performance.now();
    await trio(n);
    latencies.push(performance.now() - at);
  }
  const wallInMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.floor(q * (latencies.length - 1))].toFixed(3);
  console.log(
    `${loops} trios: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms; ${(wallInMs / loops).toFixed(3)} ms wall and ` +
      `${((cpu.user + cpu.system) / 1000 / loops).toFixed(3)} ms of process CPU per trio`,
  );
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
