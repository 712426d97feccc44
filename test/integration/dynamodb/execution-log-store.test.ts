import { afterAll, beforeAll, expect, test } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { newId } from '../../../core/ids';
import { type ExecutionLogEntry, logIdFor } from '../../../core/runs/log';
import { bulk, type LocalDynamoDb, MemoryBlobStore, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let blobStore: MemoryBlobStore;
let store: DynamoExecutionLogStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  blobStore = new MemoryBlobStore();
  store = new DynamoExecutionLogStore({
    client: dynamo.client,
    tableName: dynamo.executionsTable,
    blobStore,
  });
});

afterAll(async () => {
  await dynamo?.stop();
});

/** A span tree deeper than DynamoDB's 32 levels of nested maps. */
function deepOutput(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = { level, value };
  return value;
}

const anEntry = (overrides: Partial<ExecutionLogEntry> = {}): ExecutionLogEntry => {
  const executionId = overrides.executionId ?? newId('exe');
  return { ...entryFields(executionId), ...overrides };
};

const entryFields = (executionId: string): ExecutionLogEntry => ({
  id: logIdFor(executionId),
  workspaceId: newId('ws'),
  workflowId: newId('wf'),
  executionId,
  level: 'info',
  trigger: 'api',
  startedAt: '2025-01-02T03:04:05.000Z',
  endedAt: '2025-01-02T03:04:06.250Z',
  totalDurationMs: 1250,
  cost: { total: 0.0021, tokens: { prompt: 10, completion: 5, total: 15 }, models: {} },
  files: null,
  deploymentVersion: 2,
  models: ['gpt-4o'],
  executionData: {
    traceSpans: [
      {
        id: 'span-1',
        name: 'Workflow',
        type: 'workflow',
        startTime: '2025-01-02T03:04:05.000Z',
        endTime: '2025-01-02T03:04:06.250Z',
        duration: 1250,
        status: 'success',
        output: deepOutput(40),
      },
    ],
    finalOutput: { answer: 42 },
  },
});

test('putLogEntry stores the entry and getLogEntry returns it', async () => {
  // Prepare
  const entry = anEntry();

  // Act
  await store.putLogEntry(entry);

  // Assess
  expect(await store.getLogEntry(entry.id)).toEqual(entry);
  expect(await store.getLogEntry(newId('log'))).toBeUndefined();
});

test('getLogEntryByExecutionId returns the entry of that execution', async () => {
  // Prepare
  const entry = anEntry({
    level: 'error',
    executionData: { traceSpans: [], finalOutput: null, error: 'boom' },
  });
  await store.putLogEntry(entry);

  // Act
  const found = await store.getLogEntryByExecutionId(entry.executionId);

  // Assess
  expect(found).toEqual(entry);
  expect(await store.getLogEntryByExecutionId(newId('exe'))).toBeUndefined();
});

test('the log entry item carries the workspace-and-time and execution index keys', async () => {
  // Prepare
  const entry = anEntry();

  // Act
  await store.putLogEntry(entry);

  // Assess
  const raw = await dynamo.rawItem(dynamo.executionsTable, `LOG#${entry.id}`, 'LOG');
  expect(raw?.gsi1pk).toEqual({ S: `WS#${entry.workspaceId}` });
  expect(raw?.gsi1sk).toEqual({ S: `${entry.startedAt}#${entry.id}` });
  expect(raw?.gsi2pk).toEqual({ S: `EXEC#${entry.executionId}` });
  expect(raw?.gsi2sk).toEqual({ S: 'LOG' });
});

test('a second putLogEntry for the same execution (a redelivered Finalize) changes nothing', async () => {
  // Prepare
  const entry = anEntry();
  await store.putLogEntry(entry);
  const redelivered = { ...entry, endedAt: '2025-01-02T03:05:00.000Z' };

  // Act
  await store.putLogEntry(redelivered);

  // Assess
  expect(await store.getLogEntry(entry.id)).toEqual(entry);
  expect(await store.getLogEntryByExecutionId(entry.executionId)).toEqual(entry);
});

test('putLogEntry refuses an entry whose id is not the one of its execution', async () => {
  // Prepare
  const entry = { ...anEntry(), id: newId('log') };

  // Act
  const attempt = store.putLogEntry(entry);

  // Assess
  await expect(attempt).rejects.toThrow(/does not belong to execution/);
  expect(await store.getLogEntry(entry.id)).toBeUndefined();
});

test('a log entry whose executionData is over 300 KB round-trips through the blob store', async () => {
  // Prepare
  const entry = anEntry({
    executionData: {
      traceSpans: anEntry().executionData.traceSpans,
      finalOutput: { text: bulk(500 * 1024) },
    },
  });

  // Act
  await store.putLogEntry(entry);

  // Assess
  const key = `executions/${entry.executionId}/data.json`;
  expect(blobStore.objects.has(key)).toBe(true);
  const raw = await dynamo.rawItem(dynamo.executionsTable, `LOG#${entry.id}`, 'LOG');
  expect(raw?.executionDataBlobKey).toEqual({ S: key });
  expect(raw?.executionDataJson).toBeUndefined();
  expect(await store.getLogEntry(entry.id)).toEqual(entry);
  expect(await store.getLogEntryByExecutionId(entry.executionId)).toEqual(entry);
});

test('putLogEntry of executionData over 300 KB without a blob store fails saying so and stores no entry', async () => {
  // Prepare
  const withoutBlobs = new DynamoExecutionLogStore({
    client: dynamo.client,
    tableName: dynamo.executionsTable,
  });
  const entry = anEntry({ executionData: { traceSpans: [], finalOutput: bulk(350 * 1024) } });

  // Act
  const attempt = withoutBlobs.putLogEntry(entry);

  // Assess
  await expect(attempt).rejects.toThrow(/bytes.*blob store/);
  expect(await store.getLogEntry(entry.id)).toBeUndefined();
});
