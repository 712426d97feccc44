/**
 * WebhookStore on the `entities` table: one item per webhook, keyed by its path, so a call finds
 * its webhook with one GetItem; a workflow's webhooks are a Query on gsi1.
 *
 * | item    | pk                | sk     | gsi1pk              | gsi1sk                 |
 * |---------|-------------------|--------|---------------------|------------------------|
 * | webhook | `WEBHOOK#<path>`  | `HOOK` | `HOOKS#<workflowId>`| `<createdAt>#<id>`     |
 *
 * The path is unique because the item is put only if absent (or, when a path is reclaimed, only
 * over the one webhook it replaces).
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { WebhookRecord, WebhookStore } from '../../core/webhooks/types';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import {
  DynamoTable,
  ENTITIES_TABLE_ENV,
  type Item,
  isConditionalCheckFailed,
  plain,
  putIfAbsent,
  queryAll,
  withoutAttributes,
} from './dynamo-table';

const webhookKey = (path: string) => ({ pk: `WEBHOOK#${path}`, sk: 'HOOK' });

export class DynamoWebhookStore extends DynamoTable implements WebhookStore {
  static fromEnv(): DynamoWebhookStore {
    return new DynamoWebhookStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(ENTITIES_TABLE_ENV),
    });
  }

  async createWebhook(record: WebhookRecord, options: { replacingId?: string } = {}): Promise<boolean> {
    const item = {
      ...plain(record),
      ...webhookKey(record.path),
      gsi1pk: `HOOKS#${record.workflowId}`,
      gsi1sk: `${record.createdAt}#${record.id}`,
    };
    if (options.replacingId === undefined) return putIfAbsent(this.client, this.tableName, item);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk) OR id = :replacing',
          ExpressionAttributeValues: { ':replacing': options.replacingId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  async getWebhookByPath(path: string): Promise<WebhookRecord | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: webhookKey(path), ConsistentRead: true }),
    );
    return item ? withoutAttributes<WebhookRecord>(item as Item) : undefined;
  }

  async listWebhooks(workflowId: string): Promise<WebhookRecord[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `HOOKS#${workflowId}` },
    });
    return items.map((item) => withoutAttributes<WebhookRecord>(item));
  }

  async deleteWebhook(workflowId: string, webhookId: string): Promise<WebhookRecord | undefined> {
    const found = (await this.listWebhooks(workflowId)).find((record) => record.id === webhookId);
    if (!found) return undefined;
    await this.client
      .send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: webhookKey(found.path),
          // Only the webhook that was found: a path freed and taken again meanwhile stays.
          ConditionExpression: 'id = :id',
          ExpressionAttributeValues: { ':id': webhookId },
        }),
      )
      .catch((error) => {
        if (!isConditionalCheckFailed(error)) throw error;
      });
    return found;
  }
}
