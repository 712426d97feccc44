/**
 * WorkflowStore on the `entities` table.
 *
 * | item        | pk              | sk                            | gsi1pk             | gsi1sk                    |
 * |-------------|-----------------|-------------------------------|--------------------|---------------------------|
 * | workflow    | `WF#<id>`       | `WF`                          | `WS#<workspaceId>` | `WF#<createdAt>#<id>`     |
 * | deployment  | `WF#<id>`       | `DEPLOY#<version, 10 digits>` |                    |                           |
 *
 * A graph is stored as a JSON string (`stateJson`), so that its depth is not limited by DynamoDB's
 * 32 levels of nested maps. When it is larger than INLINE_LIMIT_IN_BYTES it goes to the blob store
 * instead and the item keeps its key (`stateBlobKey`): deployments under
 * `deployments/<workflowId>/<version>.json`, drafts under `workflows/<workflowId>/<unique>.json`.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import { ConflictError } from '../../core/errors';
import type { WorkflowGraph } from '../../core/engine/types';
import type { Deployment, WorkflowRecord, WorkflowStore } from '../../core/workflows/types';
import {
  DynamoTable,
  ENTITIES_TABLE_ENV,
  INLINE_LIMIT_IN_BYTES,
  type Item,
  type JsonBlobStore,
  isConditionalCheckFailed,
  plain,
  queryAll,
  requireBlobStore,
  withoutAttributes,
  readPointedBlob,
} from './dynamo-table';

/** Attributes that carry the graph in an item; replaced by `state` in the domain object. */
const STATE_ATTRIBUTES = ['stateJson', 'stateBlobKey'] as const;

const workflowKey = (workflowId: string) => ({ pk: `WF#${workflowId}`, sk: 'WF' });
const deploymentKey = (workflowId: string, version: number) => ({
  pk: `WF#${workflowId}`,
  sk: `DEPLOY#${String(version).padStart(10, '0')}`,
});

export function deploymentBlobKey(workflowId: string, version: number): string {
  return `deployments/${workflowId}/${version}.json`;
}

export class DynamoWorkflowStore extends DynamoTable implements WorkflowStore {
  /** The store on the shared document client and the table named by `ENTITIES_TABLE`. */
  static fromEnv(options: { blobStore?: JsonBlobStore } = {}): DynamoWorkflowStore {
    return new DynamoWorkflowStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(ENTITIES_TABLE_ENV),
      blobStore: options.blobStore,
    });
  }

  async putWorkflow(workflow: WorkflowRecord, expectedRevision?: number): Promise<void> {
    const { state, ...rest } = plain(workflow);
    const stateAttributes = await this.stateAttributes(
      state,
      () => `workflows/${workflow.id}/${randomUUID()}.json`,
      `The graph of workflow ${workflow.id}`,
    );
    const creating = expectedRevision === undefined;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...rest,
            ...stateAttributes,
            ...workflowKey(workflow.id),
            gsi1pk: `WS#${workflow.workspaceId}`,
            gsi1sk: `WF#${workflow.createdAt}#${workflow.id}`,
          },
          ...(creating
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: '#revision = :expected',
                ExpressionAttributeNames: { '#revision': 'revision' },
                ExpressionAttributeValues: { ':expected': expectedRevision },
              }),
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      throw new ConflictError(
        creating
          ? `A workflow with id ${workflow.id} exists`
          : `Workflow ${workflow.id} was changed by someone else (expected revision ${expectedRevision})`,
        { cause: error },
      );
    }
  }

  async getWorkflow(workflowId: string): Promise<WorkflowRecord | undefined> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: workflowKey(workflowId), ConsistentRead: true }),
    );
    return result.Item && this.toRecord<WorkflowRecord>(result.Item as Item);
  }

  /** The workspace's workflows, oldest first (a Query on gsi1). */
  async listWorkflows(workspaceId: string): Promise<WorkflowRecord[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `WS#${workspaceId}`, ':prefix': 'WF#' },
    });
    return Promise.all(items.map((item) => this.toRecord<WorkflowRecord>(item)));
  }

  /** Deletes the workflow; its deployments stay, since log entries point at them. */
  async deleteWorkflow(workflowId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: workflowKey(workflowId) }));
  }

  async putDeployment(deployment: Deployment): Promise<void> {
    const key = deploymentKey(deployment.workflowId, deployment.version);
    const conflict = (cause?: unknown) =>
      new ConflictError(
        `Version ${deployment.version} of workflow ${deployment.workflowId} is deployed already`,
        cause === undefined ? undefined : { cause },
      );
    const { state, ...rest } = plain(deployment);
    const blobKey = deploymentBlobKey(deployment.workflowId, deployment.version);
    if (this.isLarge(state)) {
      // The blob key is fixed per version: check first so that an existing deployment's blob is
      // never overwritten (the conditional put below still settles a race).
      const existing = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
      );
      if (existing.Item) throw conflict();
    }
    const stateAttributes = await this.stateAttributes(
      state,
      () => blobKey,
      `The graph of deployment ${deployment.version} of workflow ${deployment.workflowId}`,
    );
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...rest, ...stateAttributes, ...key },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      throw conflict(error);
    }
  }

  async getDeployment(workflowId: string, version: number): Promise<Deployment | undefined> {
    const result = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: deploymentKey(workflowId, version),
        ConsistentRead: true,
      }),
    );
    return result.Item && this.toRecord<Deployment>(result.Item as Item);
  }

  private isLarge(state: WorkflowGraph): boolean {
    return Buffer.byteLength(JSON.stringify(state), 'utf8') > INLINE_LIMIT_IN_BYTES;
  }

  /** `stateJson` inline, or the graph written to the blob store and `stateBlobKey`. */
  private async stateAttributes(
    state: WorkflowGraph,
    blobKey: () => string,
    what: string,
  ): Promise<{ stateJson: string } | { stateBlobKey: string }> {
    const json = JSON.stringify(state);
    const size = Buffer.byteLength(json, 'utf8');
    if (size <= INLINE_LIMIT_IN_BYTES) return { stateJson: json };
    const blobs = requireBlobStore(this.blobStore, `${what} is ${size} bytes`);
    const key = blobKey();
    await blobs.putJson(key, state);
    return { stateBlobKey: key };
  }

  private async toRecord<T extends { state: WorkflowGraph }>(item: Item): Promise<T> {
    const record = withoutAttributes<Omit<T, 'state'>>(item, STATE_ATTRIBUTES);
    let state: WorkflowGraph;
    if (typeof item.stateBlobKey === 'string') {
      const blobs = requireBlobStore(this.blobStore, `The graph of ${item.pk} is kept in the blob store`);
      state = await readPointedBlob<WorkflowGraph>(blobs, item.stateBlobKey);
    } else {
      state = JSON.parse(String(item.stateJson)) as WorkflowGraph;
    }
    return { ...record, state } as T;
  }
}
