/**
 * CheckpointStore on the `executions` table: one item per unfinished run, pk `RUN#<executionId>`,
 * sk `CHECKPOINT`. The checkpoint is stored as a JSON string (`checkpointJson`); when it is larger
 * than INLINE_LIMIT_IN_BYTES it goes to the blob store under `executions/<executionId>/checkpoint.json`
 * and the item keeps that key (`checkpointBlobKey`).
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import type { CheckpointStore } from '../../core/runs/log';
import {
  DynamoTable,
  EXECUTIONS_TABLE_ENV,
  INLINE_LIMIT_IN_BYTES,
  type JsonBlobStore,
  requireBlobStore,
  readPointedBlob,
} from './dynamo-table';

const checkpointKey = (executionId: string) => ({ pk: `RUN#${executionId}`, sk: 'CHECKPOINT' });

export function checkpointBlobKey(executionId: string): string {
  return `executions/${executionId}/checkpoint.json`;
}

export class DynamoCheckpointStore extends DynamoTable implements CheckpointStore {
  /** The store on the shared document client and the table named by `EXECUTIONS_TABLE`. */
  static fromEnv(options: { blobStore?: JsonBlobStore } = {}): DynamoCheckpointStore {
    return new DynamoCheckpointStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(EXECUTIONS_TABLE_ENV),
      blobStore: options.blobStore,
    });
  }

  save(executionId: string, checkpoint: unknown): Promise<void> {
    return this.saveJson(executionId, JSON.stringify(checkpoint ?? null));
  }

  async saveJson(executionId: string, json: string): Promise<void> {
    const size = Buffer.byteLength(json, 'utf8');
    let data: { checkpointJson: string } | { checkpointBlobKey: string };
    if (size <= INLINE_LIMIT_IN_BYTES) {
      data = { checkpointJson: json };
    } else {
      const blobs = requireBlobStore(
        this.blobStore,
        `The checkpoint of execution ${executionId} is ${size} bytes`,
      );
      const key = checkpointBlobKey(executionId);
      await blobs.putJsonText(key, json);
      data = { checkpointBlobKey: key };
    }
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...checkpointKey(executionId), executionId, ...data, savedAt: new Date().toISOString() },
      }),
    );
  }

  async load(executionId: string): Promise<unknown | undefined> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: checkpointKey(executionId), ConsistentRead: true }),
    );
    const item = result.Item;
    if (!item) return undefined;
    if (typeof item.checkpointBlobKey === 'string') {
      const blobs = requireBlobStore(
        this.blobStore,
        `The checkpoint of execution ${executionId} is kept in the blob store`,
      );
      return readPointedBlob<unknown>(blobs, item.checkpointBlobKey);
    }
    return JSON.parse(String(item.checkpointJson));
  }

  /** Removes the item, and the blob it pointed at: a large result would otherwise be kept twice. */
  async delete(executionId: string): Promise<void> {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: checkpointKey(executionId),
        ReturnValues: 'ALL_OLD',
      }),
    );
    if (typeof Attributes?.checkpointBlobKey === 'string') {
      await this.blobStore?.delete(Attributes.checkpointBlobKey);
    }
  }
}
