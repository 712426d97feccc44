/**
 * ExecutionLogStore on the `executions` table.
 *
 * | item            | pk                  | sk    | gsi1pk             | gsi1sk                 | gsi2pk              | gsi2sk |
 * |-----------------|---------------------|-------|--------------------|------------------------|---------------------|--------|
 * | log entry       | `LOG#<logId>`       | `LOG` | `WS#<workspaceId>` | `<startedAt>#<logId>`  | `EXEC#<executionId>`| `LOG`  |
 * | execution claim | `EXEC#<executionId>`| `LOG` |                    |                        |                     |        |
 *
 * The claim makes the write idempotent per execution without transactions: it is put first, on the
 * condition that it does not exist, and names the log id. A redelivered Finalize finds the claim and
 * writes nothing, unless the entry it names is missing (the first attempt stopped between the two
 * writes), in which case it completes that entry under the claimed id.
 *
 * `executionData` is stored as a JSON string (`executionDataJson`: trace spans nest deeper than
 * DynamoDB's 32 levels of maps allow). When the item would be larger than INLINE_LIMIT_IN_BYTES,
 * it goes to the blob store under `executions/<executionId>/data.json` instead, and the item keeps
 * that key (`executionDataBlobKey`); reads load it back transparently.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient, requireEnv } from '../aws/clients';
import { type ExecutionLogEntry, type ExecutionLogStore, logIdFor } from '../../core/runs/log';
import {
  DynamoTable,
  EXECUTIONS_TABLE_ENV,
  INLINE_LIMIT_IN_BYTES,
  type Item,
  type JsonBlobStore,
  isConditionalCheckFailed,
  jsonSizeInBytes,
  plain,
  requireBlobStore,
  withoutAttributes,
  readPointedBlob,
} from './shared';

const DATA_ATTRIBUTES = ['executionDataJson', 'executionDataBlobKey'] as const;

const logKey = (logId: string) => ({ pk: `LOG#${logId}`, sk: 'LOG' });

export function executionDataBlobKey(executionId: string): string {
  return `executions/${executionId}/data.json`;
}

export class DynamoExecutionLogStore extends DynamoTable implements ExecutionLogStore {
  /** The store on the shared document client and the table named by `EXECUTIONS_TABLE`. */
  static fromEnv(options: { blobStore?: JsonBlobStore } = {}): DynamoExecutionLogStore {
    return new DynamoExecutionLogStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(EXECUTIONS_TABLE_ENV),
      blobStore: options.blobStore,
    });
  }

  async putLogEntry(entry: ExecutionLogEntry): Promise<void> {
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
    } catch (error) {
      // Written by an earlier delivery of the same Finalize: nothing left to do.
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }

  async getLogEntry(logId: string): Promise<ExecutionLogEntry | undefined> {
    const item = await this.get(logKey(logId));
    return item && this.fromItem(item);
  }

  /** One strongly consistent read, so a just-finished run is found. */
  async getLogEntryByExecutionId(executionId: string): Promise<ExecutionLogEntry | undefined> {
    return this.getLogEntry(logIdFor(executionId));
  }

  /**
   * The log entry stored in an item of this table, with its execution data loaded. Public so that
   * a query over gsi1 (a workspace's entries by start time) can reuse the item format.
   */
  async fromItem(item: Item): Promise<ExecutionLogEntry> {
    const entry = withoutAttributes<Omit<ExecutionLogEntry, 'executionData'>>(item, DATA_ATTRIBUTES);
    let executionData: ExecutionLogEntry['executionData'];
    if (typeof item.executionDataBlobKey === 'string') {
      const blobs = requireBlobStore(
        this.blobStore,
        `The execution data of log entry ${entry.id} is kept in the blob store`,
      );
      executionData = await readPointedBlob<ExecutionLogEntry['executionData']>(
        blobs,
        item.executionDataBlobKey,
      );
    } else {
      executionData = JSON.parse(String(item.executionDataJson));
    }
    return { ...entry, executionData };
  }

  private async toItem(entry: ExecutionLogEntry): Promise<Item> {
    // The execution data is the large part: it is serialized once, here, and measured as that text.
    const { executionData, ...rest } = entry;
    const base: Item = {
      ...plain(rest),
      ...logKey(entry.id),
      gsi1pk: `WS#${entry.workspaceId}`,
      gsi1sk: `${entry.startedAt}#${entry.id}`,
      gsi2pk: `EXEC#${entry.executionId}`,
      gsi2sk: 'LOG',
    };
    const dataJson = JSON.stringify(executionData);
    const size = jsonSizeInBytes(base) + Buffer.byteLength(dataJson, 'utf8');
    if (size <= INLINE_LIMIT_IN_BYTES) return { ...base, executionDataJson: dataJson };
    const blobs = requireBlobStore(
      this.blobStore,
      `The log entry of execution ${entry.executionId} is ${size} bytes`,
    );
    const key = executionDataBlobKey(entry.executionId);
    await blobs.putJsonText(key, dataJson);
    return { ...base, executionDataBlobKey: key };
  }
}
