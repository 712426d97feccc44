/**
 * Helpers shared by the DynamoDB adapters: options, the blob-store dependency for large attributes,
 * conditional-write detection, paginated queries, batched reads and turning stored items back into domain objects.
 */
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { tables } from '../../catalog/resources';

/** Environment variables that name the two tables (from the resource catalog). */
export const ENTITIES_TABLE_ENV = tables.entities.envVar;
export const EXECUTIONS_TABLE_ENV = tables.executions.envVar;
export const LIMITS_TABLE_ENV = tables.limits.envVar;
export const METRICS_TABLE_ENV = tables.metrics.envVar;

/** Where attributes too large for an item go: the blob store port's JSON part. */
export type { JsonBlobStore } from '../../core/files/blob-store';
import type { JsonBlobStore } from '../../core/files/blob-store';

/** What every DynamoDB adapter is built from. */
export interface DynamoTableOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** Adapters whose items may carry large attributes also take an optional blob store. */
export interface DynamoTableWithBlobsOptions extends DynamoTableOptions {
  blobStore?: JsonBlobStore;
}

export type Item = Record<string, unknown>;

/** The plumbing every store shares: the document client, its table, and where large attributes go. */
export abstract class DynamoTable {
  protected readonly client: DynamoDBDocumentClient;
  protected readonly tableName: string;
  protected readonly blobStore?: JsonBlobStore;

  constructor(options: DynamoTableWithBlobsOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.blobStore = options.blobStore;
  }

  /** One item by its key (of this table unless another is named), strongly consistent. */
  protected async get(
    key: { pk: string; sk: string },
    tableName = this.tableName,
  ): Promise<Item | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
    );
    return item as Item | undefined;
  }

  /** Deletes one item by its key: the item as it was, or undefined when there was none. */
  protected async deleteItem(key: { pk: string; sk: string }): Promise<Item | undefined> {
    const { Attributes } = await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: key, ReturnValues: 'ALL_OLD' }),
    );
    return Attributes as Item | undefined;
  }

  /** The items of one partition whose sort key starts with `prefix`, strongly consistent. */
  protected queryPartition(pk: string, prefix: string): Promise<Item[]> {
    return queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ConsistentRead: true,
    });
  }

  /**
   * A conditional update (of this table unless another is named): the whole item after it, or
   * undefined when the condition failed.
   */
  protected async updateWhere(input: ConditionalUpdateInput): Promise<Item | undefined> {
    return (await this.conditionalUpdate(input, 'ALL_NEW'))?.Attributes as Item | undefined;
  }

  /** A conditional update whose item is not needed back: whether the condition held. */
  protected async updateIf(input: ConditionalUpdateInput): Promise<boolean> {
    return (await this.conditionalUpdate(input, 'NONE')) !== undefined;
  }

  private async conditionalUpdate(input: ConditionalUpdateInput, returnValues: 'ALL_NEW' | 'NONE') {
    try {
      return await this.client.send(
        new UpdateCommand({ TableName: this.tableName, ...input, ReturnValues: returnValues }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }
}

type ConditionalUpdateInput = Omit<UpdateCommandInput, 'TableName' | 'ReturnValues'> & { TableName?: string };

/**
 * Serialized size above which a large attribute moves to the blob store. DynamoDB's item limit is
 * 400 KB; staying well below it leaves room for the other attributes and for their names.
 */
export const INLINE_LIMIT_IN_BYTES = 300 * 1024;

/** Key attributes of both tables; never part of a domain object. */
export const KEY_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'] as const;

/** Size in bytes of the UTF-8 JSON serialization of a value. */
export function jsonSizeInBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * A JSON copy of a domain value: drops `undefined` members (DynamoDB cannot store them, and the
 * injected client may not be configured to remove them) and anything else JSON would not keep.
 */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Puts the item only if no item has its key yet: false (nothing written) when one has. */
export async function putIfAbsent(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Item,
): Promise<boolean> {
  try {
    await client.send(
      new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** True when a write failed only because its condition expression did not hold. */
export function isConditionalCheckFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** The item without its key attributes and without the given internal attributes. */
export function withoutAttributes<T>(item: Item, internal: readonly string[] = []): T {
  const result: Item = { ...item };
  for (const name of KEY_ATTRIBUTES) delete result[name];
  for (const name of internal) delete result[name];
  return result as T;
}

/** Every item a Query returns, following `LastEvaluatedKey` across pages. */
export async function queryAll(client: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  let exclusiveStartKey: Item | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: exclusiveStartKey }));
    items.push(...((page.Items ?? []) as Item[]));
    exclusiveStartKey = page.LastEvaluatedKey as Item | undefined;
  } while (exclusiveStartKey);
  return items;
}

/**
 * The items of `keys` that exist, in batches of 100 (BatchGetItem's most); `options` are the
 * batch's other settings (a projection, a consistent read). DynamoDB may leave keys unprocessed
 * under load: they are asked for again, backing off.
 */
export async function batchGetAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: Item[],
  options: {
    ProjectionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ConsistentRead?: boolean;
  } = {},
): Promise<Item[]> {
  const items: Item[] = [];
  for (let start = 0; start < keys.length; start += 100) {
    let batch: Item[] | undefined = keys.slice(start, start + 100);
    for (let attempt = 0; batch?.length; attempt++) {
      if (attempt > 0)
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** attempt)));
      const answer = await client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: batch, ...options } } }),
      );
      items.push(...((answer.Responses?.[tableName] ?? []) as Item[]));
      batch = answer.UnprocessedKeys?.[tableName]?.Keys as Item[] | undefined;
    }
  }
  return items;
}

/**
 * The blob store, or a clear error when a large attribute has to be written or read without one.
 * `reason` says what needs it, e.g. "The state of deployment 3 of workflow wf_1 is 512000 bytes".
 */
export function requireBlobStore(blobStore: JsonBlobStore | undefined, reason: string): JsonBlobStore {
  if (!blobStore) throw new Error(`${reason}, which needs a blob store, but none was given to this store`);
  return blobStore;
}

/** Reads a blob an item points at; a missing one means the item is damaged, so it is an error. */
export async function readPointedBlob<T>(blobs: JsonBlobStore, key: string): Promise<T> {
  const value = await blobs.getJson<T>(key);
  if (value === undefined) throw new Error(`Blob ${key} is missing`);
  return value;
}

/** Whether an attribute of a user or organization item is limits state (adapters/dynamodb/limits-store.ts), not part of the record. */
export function isLimitsAttribute(name: string): boolean {
  return name.startsWith('tat_') || name.startsWith('cost_') || name === 'pendingRuns';
}

/** A user or organization item as its record: without key attributes and without its limits state. */
export function withoutLimits<T>(item: Item): T {
  return withoutAttributes<T>(item, Object.keys(item).filter(isLimitsAttribute));
}
