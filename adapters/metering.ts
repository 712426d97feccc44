/**
 * The service's billable calls, as they happen: every AWS SDK call (with DynamoDB's capacity units),
 * every function invocation and state machine execution of the local emulators, and every API request.
 * They are published on a diagnostics channel for the cost model (bench/cost/), which counts them
 * while it runs workflows; with no subscriber, publishing is skipped and a call costs one check.
 */
import { channel } from 'node:diagnostics_channel';
import { type IndexDefinition, tables } from '../catalog/resources';
import { optionalEnv } from './aws/require-env';

export type AwsService = 'DynamoDB' | 'S3' | 'SQS' | 'StepFunctions' | 'KMS' | 'SecretsManager' | 'Scheduler';

export type MeteredEvent =
  | {
      kind: 'aws';
      service: AwsService;
      operation: string;
      /** The table, bucket or queue called, when the call names one. */
      resource?: string;
      /** DynamoDB read and write request units the call consumed. */
      readUnits?: number;
      writeUnits?: number;
      /** SQS ReceiveMessage: messages received (an empty receive is idle polling, not a run's cost). */
      messages?: number;
    }
  | { kind: 'lambda'; functionId: string; memoryInMb: number; durationInMs: number }
  | { kind: 'execution'; machineType: 'EXPRESS' | 'STANDARD'; transitions: number; durationInMs: number }
  | { kind: 'apiRequest'; routeId: string };

const metered = channel('workflow-service:metered');

export function isMetering(): boolean {
  return metered.hasSubscribers;
}

export function meter(event: MeteredEvent): void {
  if (metered.hasSubscribers) metered.publish(event);
}

/** Calls `listener` with every metered event until the returned function is called. */
export function subscribeMetered(listener: (event: MeteredEvent) => void): () => void {
  const onMessage = (message: unknown) => listener(message as MeteredEvent);
  metered.subscribe(onMessage);
  return () => metered.unsubscribe(onMessage);
}

/** DynamoDB operations whose answer carries ConsumedCapacity when asked for it. */
const reportsCapacity = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchGetItem',
  'BatchWriteItem',
  'Query',
  'Scan',
  'TransactGetItems',
  'TransactWriteItems',
]);

const readOperations = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

type Input = Record<string, unknown>;
type Output = Record<string, unknown> | undefined;

/** About an item's stored size: its JSON, with binary values at their length in bytes. */
function sizeInBytes(value: unknown): number {
  if (value === undefined) return 0;
  const text = JSON.stringify(value, (_key, part) =>
    part instanceof Uint8Array ? '.'.repeat(part.length) : part,
  );
  return Buffer.byteLength(text);
}

/**
 * Units by DynamoDB's sizing rules (reads per 4 KB, half when eventually consistent; writes per
 * 1 KB; transactions twice), from the items' marshalled size, for an answer that carries none
 * (the local emulator reports them for single-item and batch calls only).
 */
function estimatedUnits(operation: string, input: Input, output: Output): { read?: number; write?: number } {
  const readUnits = (bytes: number, consistent: boolean) =>
    Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);
  switch (operation) {
    case 'Query':
    case 'Scan':
      return { read: readUnits(sizeInBytes(output?.Items), input.ConsistentRead === true) };
    case 'GetItem':
      return { read: readUnits(sizeInBytes(output?.Item), input.ConsistentRead === true) };
    case 'TransactGetItems':
      return {
        read: ((output?.Responses as { Item?: unknown }[] | undefined) ?? []).reduce(
          (sum, response) => sum + 2 * readUnits(sizeInBytes(response.Item), true),
          0,
        ),
      };
    case 'TransactWriteItems':
      return {
        write: ((input.TransactItems as Record<string, { Item?: unknown }>[] | undefined) ?? []).reduce(
          (sum, item) => sum + 2 * Math.max(1, Math.ceil(sizeInBytes(Object.values(item)[0]?.Item) / 1024)),
          0,
        ),
      };
    case 'PutItem':
      return { write: Math.max(1, Math.ceil(sizeInBytes(input.Item) / 1024)) };
    case 'UpdateItem':
    case 'DeleteItem':
      return { write: 1 };
    default:
      return {};
  }
}

/** The catalog's indexes of a table, by its local name (the catalog key) or its name in AWS. */
function indexesOf(tableName: unknown): readonly IndexDefinition[] {
  for (const [name, table] of Object.entries(tables)) {
    if (name === tableName || optionalEnv(table.envVar) === tableName) return table.indexes;
  }
  return [];
}

/**
 * A put also writes the item to every global secondary index whose key it has: one unit per KB of
 * what the index copies (the emulator reports the table's units only). An update or a delete is
 * counted for the table alone, since which indexes the stored item is in is not in the call.
 */
function indexWriteUnitsOf(operation: string, input: Input): number {
  if (operation !== 'PutItem') return 0;
  const item = (input.Item ?? {}) as Record<string, unknown>;
  return indexesOf(input.TableName).reduce((sum, index) => {
    if (item[index.partitionKey] === undefined) return sum;
    const copied = index.projection
      ? Object.fromEntries(
          [index.partitionKey, index.sortKey, ...index.projection].flatMap((name) =>
            name !== undefined && item[name] !== undefined ? [[name, item[name]]] : [],
          ),
        )
      : item;
    return sum + Math.max(1, Math.ceil(sizeInBytes(copied) / 1024));
  }, 0);
}

function unitsOf(operation: string, input: Input, output: Output): { read?: number; write?: number } {
  const consumed = output?.ConsumedCapacity as
    | { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number }
    | { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number }[]
    | undefined;
  const entries = consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed];
  const total = entries.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
  if (!total) return estimatedUnits(operation, input, output);
  const reads = entries.reduce((sum, entry) => sum + (entry.ReadCapacityUnits ?? 0), 0);
  const writes = entries.reduce((sum, entry) => sum + (entry.WriteCapacityUnits ?? 0), 0);
  // An answer that does not split its units (the emulator's) has them all of the call's kind.
  if (!reads && !writes) return readOperations.has(operation) ? { read: total } : { write: total };
  return { read: reads || undefined, write: writes || undefined };
}

function resourceOf(input: Input): string | undefined {
  const named = input.TableName ?? input.Bucket ?? input.QueueUrl;
  return typeof named === 'string' ? named.split('/').at(-1) : undefined;
}

interface MiddlewareStackLike {
  add(
    middleware: (
      next: (args: { input: Input }) => Promise<{ output: Output }>,
      context: { commandName?: string },
    ) => (args: { input: Input }) => Promise<{ output: Output }>,
    options: { step: 'serialize'; priority: 'high'; name: string },
  ): void;
}

/** Adds the metering middleware to an SDK client; returns the client. */
export function withMetering<C extends { middlewareStack: unknown }>(client: C, service: AwsService): C {
  (client.middlewareStack as MiddlewareStackLike).add(
    (next, context) => async (args) => {
      if (!metered.hasSubscribers) return next(args);
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const asksCapacity = service === 'DynamoDB' && reportsCapacity.has(operation);
      const input = asksCapacity ? { ...args.input, ReturnConsumedCapacity: 'TOTAL' } : args.input;
      const result = await next({ ...args, input });
      const event: MeteredEvent = { kind: 'aws', service, operation, resource: resourceOf(args.input) };
      if (asksCapacity) {
        const units = unitsOf(operation, input, result.output);
        const writeUnits = (units.write ?? 0) + indexWriteUnitsOf(operation, input);
        if (units.read) event.readUnits = units.read;
        if (writeUnits) event.writeUnits = writeUnits;
      }
      if (service === 'SQS' && operation === 'ReceiveMessage') {
        event.messages = ((result.output?.Messages as unknown[] | undefined) ?? []).length;
      }
      metered.publish(event);
      return result;
    },
    { step: 'serialize', priority: 'high', name: 'meterCalls' },
  );
  return client;
}
