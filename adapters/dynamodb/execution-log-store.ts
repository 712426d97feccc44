/**
 * ExecutionLogStore on the `executions` table: one item per entry, three sharded time-ordered indexes
 * that copy only its summary, and the large parts in S3 beyond a few kilobytes.
 *
 * | item      | pk            | sk    | workspaceShard         | workflowShard         | errorShard (errors only) | position             |
 * |-----------|---------------|-------|------------------------|-----------------------|--------------------------|----------------------|
 * | log entry | `LOG#<logId>` | `LOG` | `WS#<workspaceId>#<s>` | `WF#<workflowId>#<s>` | `ERR#<workspaceId>#<s>`  | `<loggedAt>#<logId>` |
 *
 * - Lookups: the log id is `log_<executionId>`, so both the log id and the execution id are one GetItem.
 * - Indexes `workspaceLog`, `workflowLog`, `workspaceErrorLog` (sort key `position`, see
 *   core/logs/position.ts) copy the attributes in `logSummaryAttributes` only (INCLUDE projection):
 *   an index item stays near 0.5 KB, one write unit, however large the entry.
 * - Sharding: `<s>` is `shardOf(logId)`, 0 to SHARD_COUNT-1. A partition key takes at most 1,000
 *   write units a second. A workspace running 5,000 runs a second writes 5,000 items a second to
 *   each of its indexes (errors at most as many); over 8 shards that is 625 a second per key, 62 %
 *   of the limit, and the same for one workflow that takes all of it. Readers query the 8 shards and
 *   merge them by position (core/logs/merge.ts), so a page reads about its own size plus a margin.
 * - Large parts: the execution data (trace spans, final output) and a draft run's graph are one JSON
 *   text, inline up to INLINE_DATA_LIMIT_IN_BYTES, gzipped in `dataGzip` (binary) when that is
 *   smaller, as it nearly always is (a write unit is 1 KB: a 3-block run's entry takes 2 instead of
 *   3), else as text in `dataJson`; past the limit, in the blob store at `logs/<executionId>.json`
 *   with the key in `dataBlobKey`. Past 8 KB an S3 PUT costs less than the write units of the
 *   bytes, and no item comes near DynamoDB's 400 KB. Entries written with `dataJson` alone read as
 *   before.
 * - Retention: `ttl` (Unix seconds) is `loggedAt` plus the retention period; DynamoDB removes the
 *   item some time after, so reads leave out expired items themselves. The files bucket expires the
 *   `logs/` prefix after the same period (lib/data-stack.ts).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import { logRetention, logSummaryAttributes } from '../../catalog/resources';
import { logPositionOf } from '../../core/logs/position';
import type { LogIndex, LogRange, LogSummary, LogSummaryPage } from '../../core/logs/types';
import {
  type ExecutionLogEntry,
  type ExecutionLogStore,
  type LogEntryHead,
  logIdFor,
} from '../../core/runs/log';
import {
  batchGetAll,
  DynamoTable,
  EXECUTIONS_TABLE_ENV,
  type Item,
  type JsonBlobStore,
  isConditionalCheckFailed,
  plain,
  requireBlobStore,
  readPointedBlob,
} from './dynamo-table';

export const SHARD_COUNT = 8;
export const INLINE_DATA_LIMIT_IN_BYTES = 8 * 1024;

const DATA_ATTRIBUTES = ['dataGzip', 'dataJson', 'dataBlobKey'] as const;
const INTERNAL_ATTRIBUTES = [
  'pk',
  'sk',
  'workspaceShard',
  'workflowShard',
  'errorShard',
  'position',
  'ttl',
  'costTotal',
  ...DATA_ATTRIBUTES,
];
/** What an entry head is read with: everything but the large parts. */
const HEAD_ATTRIBUTES = [...new Set([...logSummaryAttributes, 'cost', 'deploymentVersion'])];

const logKey = (logId: string) => ({ pk: `LOG#${logId}`, sk: 'LOG' });

export function logDataBlobKey(executionId: string): string {
  return `${logRetention.blobPrefix}${executionId}.json`;
}

/** FNV-1a of the log id: random ids spread evenly, and the shard of an entry never changes. */
export function shardOf(logId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < logId.length; i++) {
    hash ^= logId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SHARD_COUNT;
}

const indexes: Record<
  LogIndex['by'],
  { name: string; attribute: string; key: (index: LogIndex, shard: number) => string }
> = {
  workspace: {
    name: 'workspaceLog',
    attribute: 'workspaceShard',
    key: (index, shard) => `WS#${(index as { workspaceId: string }).workspaceId}#${shard}`,
  },
  workflow: {
    name: 'workflowLog',
    attribute: 'workflowShard',
    key: (index, shard) => `WF#${(index as { workflowId: string }).workflowId}#${shard}`,
  },
  workspaceErrors: {
    name: 'workspaceErrorLog',
    attribute: 'errorShard',
    key: (index, shard) => `ERR#${(index as { workspaceId: string }).workspaceId}#${shard}`,
  },
};

export interface ExecutionLogStoreOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  blobStore?: JsonBlobStore;
  retentionInDays?: number;
  now?: () => Date;
}

export class DynamoExecutionLogStore extends DynamoTable implements ExecutionLogStore {
  readonly shardCount = SHARD_COUNT;
  private readonly retentionInDays: number;
  private readonly now: () => Date;

  constructor(options: ExecutionLogStoreOptions) {
    super(options);
    this.retentionInDays = options.retentionInDays ?? logRetention.defaultInDays;
    this.now = options.now ?? (() => new Date());
  }

  /** The store on the shared document client and the table named by `EXECUTIONS_TABLE`. */
  static fromEnv(
    options: { blobStore?: JsonBlobStore; retentionInDays?: number } = {},
  ): DynamoExecutionLogStore {
    return new DynamoExecutionLogStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(EXECUTIONS_TABLE_ENV),
      blobStore: options.blobStore,
      retentionInDays: options.retentionInDays,
    });
  }

  async putLogEntry(entry: ExecutionLogEntry): Promise<boolean> {
    if (entry.id !== logIdFor(entry.executionId)) {
      throw new Error(`Log entry id ${entry.id} does not belong to execution ${entry.executionId}`);
    }
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: await this.toItem(entry),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      // Written by an earlier delivery of the same Finalize: nothing left to do.
      if (!isConditionalCheckFailed(error)) throw error;
      return false;
    }
  }

  async getLogEntry(logId: string): Promise<ExecutionLogEntry | undefined> {
    const item = await this.get(logKey(logId));
    return item && !this.isExpired(item) ? this.entryOf(item) : undefined;
  }

  /** One strongly consistent read, so a just-finished run is found. */
  async getLogEntryByExecutionId(executionId: string): Promise<ExecutionLogEntry | undefined> {
    return this.getLogEntry(logIdFor(executionId));
  }

  getLogEntries(logIds: string[], options: { executionData: true }): Promise<ExecutionLogEntry[]>;
  getLogEntries(logIds: string[], options: { executionData: false }): Promise<LogEntryHead[]>;
  async getLogEntries(
    logIds: string[],
    options: { executionData: boolean },
  ): Promise<Array<ExecutionLogEntry | LogEntryHead>> {
    const items = await this.batchGet([...new Set(logIds)], options.executionData);
    const live = items.filter((item) => !this.isExpired(item));
    return Promise.all(live.map((item) => (options.executionData ? this.entryOf(item) : headOf(item))));
  }

  async queryLogSummaries(range: LogRange): Promise<LogSummaryPage> {
    const index = indexes[range.index.by];
    const names: Record<string, string> = { '#shard': index.attribute };
    const values: Record<string, unknown> = { ':shard': index.key(range.index, range.shard) };
    const { lower, upper } = range;
    let condition = '#shard = :shard';
    if (lower || upper) names['#position'] = 'position';
    if (lower && upper) {
      // BETWEEN is inclusive; an exclusive bound drops its one item below.
      condition += ' AND #position BETWEEN :lower AND :upper';
      values[':lower'] = lower.position;
      values[':upper'] = upper.position;
    } else if (lower) {
      condition += ` AND #position ${lower.inclusive ? '>=' : '>'} :lower`;
      values[':lower'] = lower.position;
    } else if (upper) {
      condition += ` AND #position ${upper.inclusive ? '<=' : '<'} :upper`;
      values[':upper'] = upper.position;
    }
    const page = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: range.order === 'asc',
        Limit: range.limit,
      }),
    );
    const items = (page.Items ?? []) as Item[];
    const excluded = new Set(
      [lower, upper].filter((bound) => bound && !bound.inclusive).map((bound) => bound?.position),
    );
    const last = items.at(-1);
    return {
      summaries: items
        .filter((item) => !excluded.has(String(item.position)) && !this.isExpired(item))
        .map(summaryOf),
      itemsRead: page.ScannedCount ?? items.length,
      lastPosition: last ? String(last.position) : undefined,
      exhausted: page.LastEvaluatedKey === undefined,
    };
  }

  private batchGet(logIds: string[], withData: boolean): Promise<Item[]> {
    return batchGetAll(
      this.client,
      this.tableName,
      logIds.map(logKey),
      withData
        ? {}
        : {
            ProjectionExpression: HEAD_ATTRIBUTES.map((_, i) => `#a${i}`).join(', '),
            ExpressionAttributeNames: Object.fromEntries(HEAD_ATTRIBUTES.map((name, i) => [`#a${i}`, name])),
          },
    );
  }

  private isExpired(item: Item): boolean {
    return typeof item.ttl === 'number' && item.ttl * 1000 <= this.now().getTime();
  }

  private async entryOf(item: Item): Promise<ExecutionLogEntry> {
    let data: Pick<ExecutionLogEntry, 'executionData' | 'workflowState'>;
    if (typeof item.dataBlobKey === 'string') {
      const blobs = requireBlobStore(
        this.blobStore,
        `The execution data of log entry ${item.id} is kept in the blob store`,
      );
      data = await readPointedBlob(blobs, item.dataBlobKey);
    } else if (item.dataGzip instanceof Uint8Array) {
      data = JSON.parse(gunzipSync(item.dataGzip).toString('utf8'));
    } else {
      data = JSON.parse(String(item.dataJson));
    }
    return { ...headOf(item), ...data };
  }

  private async toItem(entry: ExecutionLogEntry): Promise<Item> {
    const { executionData, workflowState, ...head } = entry;
    const shard = shardOf(entry.id);
    const base: Item = {
      ...plain(head),
      ...logKey(entry.id),
      costTotal: entry.cost.total,
      position: logPositionOf(entry),
      workspaceShard: `WS#${entry.workspaceId}#${shard}`,
      workflowShard: `WF#${entry.workflowId}#${shard}`,
      ...(entry.level === 'error' ? { errorShard: `ERR#${entry.workspaceId}#${shard}` } : {}),
      ttl: Math.floor(Date.parse(entry.loggedAt) / 1000) + this.retentionInDays * 86_400,
    };
    // Trace spans nest deeper than DynamoDB's 32 levels of maps allow: they travel as JSON text.
    const dataJson = JSON.stringify({ executionData, ...(workflowState ? { workflowState } : {}) });
    const dataSizeInBytes = Buffer.byteLength(dataJson, 'utf8');
    if (dataSizeInBytes <= INLINE_DATA_LIMIT_IN_BYTES) {
      const dataGzip = gzipSync(dataJson);
      return dataGzip.length < dataSizeInBytes ? { ...base, dataGzip } : { ...base, dataJson };
    }
    const blobs = requireBlobStore(
      this.blobStore,
      `The execution data of execution ${entry.executionId} is ${dataSizeInBytes} bytes`,
    );
    const key = logDataBlobKey(entry.executionId);
    await blobs.putJsonText(key, dataJson);
    return { ...base, dataBlobKey: key };
  }
}

function headOf(item: Item): LogEntryHead {
  const head: Item = { ...item };
  for (const name of INTERNAL_ATTRIBUTES) delete head[name];
  return head as unknown as LogEntryHead;
}

function summaryOf(item: Item): LogSummary {
  return {
    id: String(item.id),
    workspaceId: String(item.workspaceId),
    workflowId: String(item.workflowId),
    executionId: String(item.executionId),
    level: item.level as LogSummary['level'],
    trigger: item.trigger as LogSummary['trigger'],
    startedAt: String(item.startedAt),
    endedAt: String(item.endedAt),
    loggedAt: String(item.loggedAt),
    totalDurationMs: Number(item.totalDurationMs),
    costTotal: Number(item.costTotal),
    models: (item.models as string[] | undefined) ?? [],
    files: (item.files as LogSummary['files'] | undefined) ?? null,
  };
}
