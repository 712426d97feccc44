import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  DynamoExecutionLogStore,
  INLINE_DATA_LIMIT_IN_BYTES,
  SHARD_COUNT,
  logDataBlobKey,
  shardOf,
} from '../../../adapters/dynamodb/execution-log-store';
import { newId } from '../../../core/ids';
import { logPositionOf } from '../../../core/logs/position';
import type { LogIndex, LogRange, LogSummary } from '../../../core/logs/types';
import { type ExecutionLogEntry, logIdFor } from '../../../core/runs/log';
import { bulk, type LocalDynamoDb, MemoryBlobStore, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let blobStore: MemoryBlobStore;
let store: DynamoExecutionLogStore;
/** The clock the store judges expiry by; tests move it. */
let nowInMs = Date.parse('2025-01-02T04:00:00.000Z');

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  blobStore = new MemoryBlobStore();
  store = new DynamoExecutionLogStore({
    client: dynamo.client,
    tableName: dynamo.executionsTable,
    blobStore,
    retentionInDays: 30,
    now: () => new Date(nowInMs),
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

function anEntry(overrides: Partial<ExecutionLogEntry> = {}): ExecutionLogEntry {
  const executionId = overrides.executionId ?? newId('exe');
  return {
    id: logIdFor(executionId),
    workspaceId: newId('ws'),
    workflowId: newId('wf'),
    executionId,
    level: 'info',
    trigger: 'api',
    startedAt: '2025-01-02T03:04:05.000Z',
    endedAt: '2025-01-02T03:04:06.250Z',
    loggedAt: '2025-01-02T03:04:06.300Z',
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
    ...overrides,
  };
}

/** `count` entries of one workspace, one a second apart, every third one an error. */
async function seedWorkspace(count: number, workflowId = newId('wf')): Promise<ExecutionLogEntry[]> {
  const workspaceId = newId('ws');
  const entries = Array.from({ length: count }, (_, i) =>
    anEntry({
      workspaceId,
      workflowId,
      level: i % 3 === 0 ? 'error' : 'info',
      loggedAt: new Date(Date.parse('2025-01-02T03:00:00.000Z') + i * 1000).toISOString(),
    }),
  );
  await Promise.all(entries.map((entry) => store.putLogEntry(entry)));
  return entries;
}

/** Every summary of one index, reading each shard to its end in pages of `pageSize`. */
async function readIndex(index: LogIndex, order: 'asc' | 'desc', pageSize = 3): Promise<LogSummary[]> {
  const all: LogSummary[] = [];
  for (let shard = 0; shard < store.shardCount; shard++) {
    let after: string | undefined;
    for (;;) {
      const bound = after ? { position: after, inclusive: false } : undefined;
      const page = await store.queryLogSummaries({
        index,
        shard,
        order,
        limit: pageSize,
        ...(order === 'asc' ? { lower: bound } : { upper: bound }),
      });
      all.push(...page.summaries);
      if (page.exhausted || !page.lastPosition) break;
      after = page.lastPosition;
    }
  }
  return all;
}

const positionsOf = (summaries: Array<{ loggedAt: string; id: string }>) =>
  summaries.map((summary) => logPositionOf(summary));

describe('DynamoExecutionLogStore: entries', () => {
  test('putLogEntry stores the entry and getLogEntry returns it, deep trace spans included', async () => {
    // Prepare
    const entry = anEntry();

    // Act
    await store.putLogEntry(entry);

    // Assess
    expect(await store.getLogEntry(entry.id)).toEqual(entry);
    expect(await store.getLogEntry(newId('log'))).toBeUndefined();
  });

  test('getLogEntryByExecutionId returns the entry of that execution, and nothing for another', async () => {
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

  test('the item carries the sharded index keys, the position, the cost total and the expiry', async () => {
    // Prepare
    const entry = anEntry({ level: 'error' });
    const shard = shardOf(entry.id);

    // Act
    await store.putLogEntry(entry);

    // Assess
    const raw = await dynamo.rawItem(dynamo.executionsTable, `LOG#${entry.id}`, 'LOG');
    expect(raw?.workspaceShard).toEqual({ S: `WS#${entry.workspaceId}#${shard}` });
    expect(raw?.workflowShard).toEqual({ S: `WF#${entry.workflowId}#${shard}` });
    expect(raw?.errorShard).toEqual({ S: `ERR#${entry.workspaceId}#${shard}` });
    expect(raw?.position).toEqual({ S: `${entry.loggedAt}#${entry.id}` });
    expect(raw?.costTotal).toEqual({ N: '0.0021' });
    expect(raw?.ttl).toEqual({ N: String(Math.floor(Date.parse(entry.loggedAt) / 1000) + 30 * 86_400) });
    expect(raw?.dataGzip?.B).toBeDefined();
    expect(raw?.dataJson).toBeUndefined();
    expect(raw?.dataBlobKey).toBeUndefined();
  });

  test('an info entry has no key on the error index', async () => {
    // Prepare
    const entry = anEntry({ level: 'info' });

    // Act
    await store.putLogEntry(entry);

    // Assess
    const raw = await dynamo.rawItem(dynamo.executionsTable, `LOG#${entry.id}`, 'LOG');
    expect(raw?.errorShard).toBeUndefined();
  });

  test('a second putLogEntry for the same execution (a redelivered Finalize) changes nothing', async () => {
    // Prepare
    const entry = anEntry();
    await store.putLogEntry(entry);
    const redelivered = {
      ...entry,
      endedAt: '2025-01-02T03:05:00.000Z',
      loggedAt: '2025-01-02T03:05:00.100Z',
    };

    // Act
    await store.putLogEntry(redelivered);

    // Assess
    expect(await store.getLogEntry(entry.id)).toEqual(entry);
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

  test('execution data over the inline limit goes to the blob store at logs/<executionId>.json and round-trips', async () => {
    // Prepare
    const entry = anEntry({
      executionData: {
        traceSpans: anEntry().executionData.traceSpans,
        finalOutput: { text: bulk(INLINE_DATA_LIMIT_IN_BYTES + 1) },
      },
    });

    // Act
    await store.putLogEntry(entry);

    // Assess
    const key = logDataBlobKey(entry.executionId);
    expect(key).toBe(`logs/${entry.executionId}.json`);
    expect(blobStore.objects.has(key)).toBe(true);
    const raw = await dynamo.rawItem(dynamo.executionsTable, `LOG#${entry.id}`, 'LOG');
    expect(raw?.dataBlobKey).toEqual({ S: key });
    expect(raw?.dataJson).toBeUndefined();
    expect(JSON.stringify(raw).length).toBeLessThan(4 * 1024);
    expect(await store.getLogEntry(entry.id)).toEqual(entry);
  });

  test('a 1 MB final output is stored, the item staying small', async () => {
    // Prepare
    const entry = anEntry({ executionData: { traceSpans: [], finalOutput: bulk(1024 * 1024) } });

    // Act
    await store.putLogEntry(entry);

    // Assess
    const raw = await dynamo.rawItem(dynamo.executionsTable, `LOG#${entry.id}`, 'LOG');
    expect(JSON.stringify(raw).length).toBeLessThan(4 * 1024);
    expect((await store.getLogEntry(entry.id))?.executionData.finalOutput).toBe(bulk(1024 * 1024));
  });

  test('execution data over the inline limit without a blob store fails saying so and stores no entry', async () => {
    // Prepare
    const withoutBlobs = new DynamoExecutionLogStore({
      client: dynamo.client,
      tableName: dynamo.executionsTable,
    });
    const entry = anEntry({ executionData: { traceSpans: [], finalOutput: bulk(20 * 1024) } });

    // Act
    const attempt = withoutBlobs.putLogEntry(entry);

    // Assess
    await expect(attempt).rejects.toThrow(/bytes.*blob store/);
    expect(await store.getLogEntry(entry.id)).toBeUndefined();
  });

  test('a draft run keeps its graph with the entry', async () => {
    // Prepare
    const workflowState = {
      blocks: { start: { id: 'start', type: 'starter', name: 'Start', subBlocks: {} } },
      edges: [],
      loops: {},
      parallels: {},
    } as unknown as ExecutionLogEntry['workflowState'];
    const entry = anEntry({ deploymentVersion: 0, workflowState });

    // Act
    await store.putLogEntry(entry);

    // Assess
    expect((await store.getLogEntry(entry.id))?.workflowState).toEqual(workflowState);
  });

  test('an entry past its retention reads as missing', async () => {
    // Prepare
    const entry = anEntry({ loggedAt: '2025-01-02T03:04:06.300Z' });
    await store.putLogEntry(entry);
    const before = nowInMs;

    // Act
    nowInMs = Date.parse(entry.loggedAt) + 30 * 86_400_000 + 1000;
    const found = await store.getLogEntry(entry.id);
    const heads = await store.getLogEntries([entry.id], { executionData: false });
    nowInMs = before;

    // Assess
    expect(found).toBeUndefined();
    expect(heads).toEqual([]);
    expect(await store.getLogEntry(entry.id)).toEqual(entry);
  });

  test('getLogEntries returns heads without the large parts, or full entries, for more than 100 ids', async () => {
    // Prepare
    const entries = await seedWorkspace(130);
    const ids = [...entries.map((entry) => entry.id), newId('log'), entries[0]?.id as string];

    // Act
    const heads = await store.getLogEntries(ids, { executionData: false });
    const full = await store.getLogEntries(ids.slice(0, 5), { executionData: true });

    // Assess
    expect(heads).toHaveLength(130);
    const byId = new Map(heads.map((head) => [head.id, head]));
    for (const entry of entries) {
      const { executionData: _data, workflowState: _graph, ...head } = entry;
      expect(byId.get(entry.id)).toEqual(head);
    }
    expect(full.map((entry) => entry.id).sort()).toEqual(ids.slice(0, 5).sort());
    expect(full[0]?.executionData.traceSpans).toHaveLength(1);
  });
});

describe('DynamoExecutionLogStore: time-ordered indexes', () => {
  test('the workspace index holds every entry once, in position order per shard, both orders', async () => {
    // Prepare
    const entries = await seedWorkspace(40);
    const workspaceId = entries[0]?.workspaceId as string;
    const expected = positionsOf(entries).sort();

    // Act
    const asc = await readIndex({ by: 'workspace', workspaceId }, 'asc');
    const desc = await readIndex({ by: 'workspace', workspaceId }, 'desc');

    // Assess
    expect(positionsOf(asc).sort()).toEqual(expected);
    expect(positionsOf(desc).sort()).toEqual(expected);
    for (let shard = 0; shard < SHARD_COUNT; shard++) {
      const inShard = asc.filter((summary) => shardOf(summary.id) === shard);
      expect(positionsOf(inShard)).toEqual([...positionsOf(inShard)].sort());
    }
  });

  test('a summary carries what filters and a basic list item need', async () => {
    // Prepare
    const entry = anEntry({ trigger: 'webhook', level: 'error', models: ['claude'] });
    await store.putLogEntry(entry);

    // Act
    const summaries = await readIndex({ by: 'workspace', workspaceId: entry.workspaceId }, 'desc');

    // Assess
    expect(summaries).toEqual([
      {
        id: entry.id,
        workspaceId: entry.workspaceId,
        workflowId: entry.workflowId,
        executionId: entry.executionId,
        level: 'error',
        trigger: 'webhook',
        startedAt: entry.startedAt,
        endedAt: entry.endedAt,
        loggedAt: entry.loggedAt,
        totalDurationMs: 1250,
        costTotal: 0.0021,
        models: ['claude'],
        files: null,
      },
    ]);
  });

  test('the workflow index holds the entries of one workflow only', async () => {
    // Prepare
    const workflowId = newId('wf');
    const mine = await seedWorkspace(12, workflowId);
    await seedWorkspace(5);

    // Act
    const summaries = await readIndex({ by: 'workflow', workflowId }, 'asc');

    // Assess
    expect(positionsOf(summaries).sort()).toEqual(positionsOf(mine).sort());
  });

  test('the error index holds the error entries only', async () => {
    // Prepare
    const entries = await seedWorkspace(30);
    const workspaceId = entries[0]?.workspaceId as string;

    // Act
    const summaries = await readIndex({ by: 'workspaceErrors', workspaceId }, 'desc');

    // Assess
    const errors = entries.filter((entry) => entry.level === 'error');
    expect(errors).toHaveLength(10);
    expect(positionsOf(summaries).sort()).toEqual(positionsOf(errors).sort());
  });

  test('bounds select positions: inclusive and exclusive, lower, upper and both', async () => {
    // Prepare: every entry on one shard's read is compared with the same bounds applied by hand
    const entries = await seedWorkspace(40);
    const workspaceId = entries[0]?.workspaceId as string;
    const sorted = positionsOf(entries).sort();
    const low = sorted[10] as string;
    const high = sorted[30] as string;
    const cases: Array<{ range: Partial<LogRange>; keep: (position: string) => boolean }> = [
      { range: { lower: { position: low, inclusive: true } }, keep: (p) => p >= low },
      { range: { lower: { position: low, inclusive: false } }, keep: (p) => p > low },
      { range: { upper: { position: high, inclusive: true } }, keep: (p) => p <= high },
      { range: { upper: { position: high, inclusive: false } }, keep: (p) => p < high },
      {
        range: { lower: { position: low, inclusive: false }, upper: { position: high, inclusive: false } },
        keep: (p) => p > low && p < high,
      },
      {
        range: { lower: { position: low, inclusive: true }, upper: { position: high, inclusive: true } },
        keep: (p) => p >= low && p <= high,
      },
    ];

    for (const { range, keep } of cases) {
      // Act
      const found: string[] = [];
      for (let shard = 0; shard < SHARD_COUNT; shard++) {
        const page = await store.queryLogSummaries({
          index: { by: 'workspace', workspaceId },
          shard,
          order: 'asc',
          limit: 100,
          ...range,
        });
        expect(page.exhausted).toBe(true);
        found.push(...positionsOf(page.summaries));
      }

      // Assess
      expect(found.sort()).toEqual(sorted.filter(keep));
    }
  });

  test('a limited read reports what it read, where it stopped and that more remain', async () => {
    // Prepare: one shard with at least three entries
    const entries = await seedWorkspace(60);
    const workspaceId = entries[0]?.workspaceId as string;
    const counts = new Map<number, number>();
    for (const entry of entries) counts.set(shardOf(entry.id), (counts.get(shardOf(entry.id)) ?? 0) + 1);
    const [shard] = [...counts].find(([, count]) => count >= 3) as [number, number];
    const inShard = positionsOf(entries.filter((entry) => shardOf(entry.id) === shard))
      .sort()
      .reverse();

    // Act
    const page = await store.queryLogSummaries({
      index: { by: 'workspace', workspaceId },
      shard,
      order: 'desc',
      limit: 2,
    });

    // Assess
    expect(positionsOf(page.summaries)).toEqual(inShard.slice(0, 2));
    expect(page.itemsRead).toBe(2);
    expect(page.lastPosition).toBe(inShard[1]);
    expect(page.exhausted).toBe(false);
  });

  test('an expired entry is left out of a read but counted and stepped over', async () => {
    // Prepare
    const workspaceId = newId('ws');
    const old = anEntry({ workspaceId, loggedAt: '2024-11-01T00:00:00.000Z' });
    const fresh = anEntry({ workspaceId, loggedAt: '2025-01-02T03:00:00.000Z' });
    await store.putLogEntry(old);
    await store.putLogEntry(fresh);
    const shard = shardOf(old.id);

    // Act
    const page = await store.queryLogSummaries({
      index: { by: 'workspace', workspaceId },
      shard,
      order: 'asc',
      limit: 1,
    });

    // Assess
    expect(page.summaries).toEqual([]);
    expect(page.itemsRead).toBe(1);
    expect(page.lastPosition).toBe(logPositionOf(old));
  });

  test('shardOf spreads random ids evenly and always gives an id the same shard', () => {
    // Prepare
    const ids = Array.from({ length: 8_000 }, () => logIdFor(newId('exe')));

    // Act
    const counts = Array.from({ length: SHARD_COUNT }, () => 0);
    for (const id of ids) counts[shardOf(id)] = (counts[shardOf(id)] ?? 0) + 1;

    // Assess
    for (const count of counts) expect(count).toBeGreaterThan(800);
    for (const count of counts) expect(count).toBeLessThan(1_200);
    expect(shardOf(ids[0] as string)).toBe(shardOf(ids[0] as string));
  });
});
