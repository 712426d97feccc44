/**
 * NotificationStore: subscriptions on the `entities` table beside their workspace, deliveries on
 * the `executions` table beside their subscription.
 *
 * | item         | table      | pk                   | sk                               |
 * |--------------|------------|----------------------|----------------------------------|
 * | subscription | entities   | `WS#<workspaceId>`   | `NOTIF#<notificationId>`         |
 * | delivery     | executions | `NOTIF#<notificationId>` | `DLV#<createdAt>#<deliveryId>` |
 * | alert state  | executions | `NOTIF#<notificationId>` | `ALERT#<workflowId>`           |
 * | no-activity index | entities | `ALERTS#no_activity` | `WS#<workspaceId>#NOTIF#<id>` |
 *
 * - The scheduled no-activity check reads one partition: the subscriptions with that rule (few).
 *
 * - A workspace's subscriptions (at most 10 per channel) are one Query, read by every dispatch.
 * - A delivery's id follows from its event and subscription, and its `createdAt` is the event's
 *   time, so a redelivered event puts the very same key, which a conditional put turns into a no-op.
 *   The history is newest first by sort key. `ttl` removes a delivery 30 days after it was made.
 * - An alert's state is written with a version condition: events of one workflow handled at once
 *   re-read and re-apply rather than overwrite each other.
 * - The body sent (the payload, fixed at dispatch) stays inline up to 64 KB, else in the blob store
 *   at `executions/notifications/<deliveryId>.json` (expired with the other run blobs).
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type {
  AlertStateRecord,
  DeliveryMessage,
  DeliveryRecord,
  NotificationRecord,
  NotificationStore,
} from '../../core/notifications/types';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { optionalEnv, requireEnv } from '../aws/require-env';
import {
  ENTITIES_TABLE_ENV,
  EXECUTIONS_TABLE_ENV,
  type Item,
  isConditionalCheckFailed,
  type JsonBlobStore,
  plain,
  putIfAbsent,
  queryAll,
  readPointedBlob,
  requireBlobStore,
  withoutAttributes,
} from './dynamo-table';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const inlineBodyLimitInBytes = 64 * 1024;
const deliveryRetentionInSeconds = 30 * 86_400;

const notificationKey = (workspaceId: string, id: string) => ({ pk: `WS#${workspaceId}`, sk: `NOTIF#${id}` });
const noActivityKey = (workspaceId: string, id: string) => ({
  pk: 'ALERTS#no_activity',
  sk: `WS#${workspaceId}#NOTIF#${id}`,
});
const deliveryKey = (key: DeliveryMessage) => ({
  pk: `NOTIF#${key.notificationId}`,
  sk: `DLV#${key.createdAt}#${key.deliveryId}`,
});

export interface NotificationStoreOptions {
  client: DynamoDBDocumentClient;
  entitiesTable: string;
  /**
   * Where deliveries are kept. Absent in functions that only manage subscriptions (CDK gives them the
   * entities table alone); a delivery call there names the missing variable.
   */
  executionsTable?: string;
  blobStore?: JsonBlobStore;
}

export class DynamoNotificationStore implements NotificationStore {
  constructor(private readonly options: NotificationStoreOptions) {}

  static fromEnv(options: { blobStore?: JsonBlobStore } = {}): DynamoNotificationStore {
    return new DynamoNotificationStore({
      client: dynamoDocumentClient(),
      entitiesTable: requireEnv(ENTITIES_TABLE_ENV),
      executionsTable: optionalEnv(EXECUTIONS_TABLE_ENV),
      blobStore: options.blobStore,
    });
  }

  private get client() {
    return this.options.client;
  }

  private get executionsTable(): string {
    return this.options.executionsTable ?? requireEnv(EXECUTIONS_TABLE_ENV);
  }

  async putNotification(record: NotificationRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.options.entitiesTable,
        Item: { ...plain(record), ...notificationKey(record.workspaceId, record.id) },
      }),
    );
    const indexKey = noActivityKey(record.workspaceId, record.id);
    if (record.alert?.rule === 'no_activity') {
      await this.client.send(
        new PutCommand({
          TableName: this.options.entitiesTable,
          Item: { ...indexKey, workspaceId: record.workspaceId, notificationId: record.id },
        }),
      );
    } else {
      await this.client.send(new DeleteCommand({ TableName: this.options.entitiesTable, Key: indexKey }));
    }
  }

  async listNoActivitySubscriptions(): Promise<Array<{ workspaceId: string; id: string }>> {
    const items = await queryAll(this.client, {
      TableName: this.options.entitiesTable,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'ALERTS#no_activity' },
    });
    return items.map((item) => ({ workspaceId: String(item.workspaceId), id: String(item.notificationId) }));
  }

  async getNotification(workspaceId: string, id: string): Promise<NotificationRecord | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.options.entitiesTable,
        Key: notificationKey(workspaceId, id),
        ConsistentRead: true,
      }),
    );
    return item ? withoutAttributes<NotificationRecord>(item as Item) : undefined;
  }

  async listNotifications(workspaceId: string): Promise<NotificationRecord[]> {
    const items = await queryAll(this.client, {
      TableName: this.options.entitiesTable,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :notif)',
      ExpressionAttributeValues: { ':pk': `WS#${workspaceId}`, ':notif': 'NOTIF#' },
      ConsistentRead: true,
    });
    return items
      .map((item) => withoutAttributes<NotificationRecord>(item))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async deleteNotification(workspaceId: string, id: string): Promise<boolean> {
    await this.client.send(
      new DeleteCommand({ TableName: this.options.entitiesTable, Key: noActivityKey(workspaceId, id) }),
    );
    const { Attributes: removed } = await this.client.send(
      new DeleteCommand({
        TableName: this.options.entitiesTable,
        Key: notificationKey(workspaceId, id),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return removed !== undefined;
  }

  async createDelivery(delivery: DeliveryRecord): Promise<boolean> {
    return putIfAbsent(this.client, this.executionsTable, await this.deliveryItem(delivery));
  }

  async putDelivery(delivery: DeliveryRecord): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.executionsTable, Item: await this.deliveryItem(delivery) }),
    );
  }

  async getDelivery(key: DeliveryMessage): Promise<DeliveryRecord | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.executionsTable,
        Key: deliveryKey(key),
        ConsistentRead: true,
      }),
    );
    return item ? this.deliveryOf(item as Item) : undefined;
  }

  async listDeliveries(notificationId: string, limit: number): Promise<DeliveryRecord[]> {
    const { Items: items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.executionsTable,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :dlv)',
        ExpressionAttributeValues: { ':pk': `NOTIF#${notificationId}`, ':dlv': 'DLV#' },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return Promise.all((items as Item[]).map((item) => this.deliveryOf(item)));
  }

  async getAlertState(
    notificationId: string,
    workflowId: string,
  ): Promise<{ state: AlertStateRecord; version: number } | undefined> {
    const { Item: item } = await this.client.send(
      new GetCommand({
        TableName: this.executionsTable,
        Key: { pk: `NOTIF#${notificationId}`, sk: `ALERT#${workflowId}` },
        ConsistentRead: true,
      }),
    );
    if (!item) return undefined;
    return { state: JSON.parse(String(item.stateJson)) as AlertStateRecord, version: Number(item.version) };
  }

  async putAlertState(
    notificationId: string,
    workflowId: string,
    state: AlertStateRecord,
    expectedVersion: number,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.executionsTable,
          Item: {
            pk: `NOTIF#${notificationId}`,
            sk: `ALERT#${workflowId}`,
            stateJson: JSON.stringify(state),
            version: expectedVersion + 1,
          },
          ConditionExpression: expectedVersion === 0 ? 'attribute_not_exists(pk)' : 'version = :expected',
          ...(expectedVersion === 0 ? {} : { ExpressionAttributeValues: { ':expected': expectedVersion } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  private async deliveryItem(delivery: DeliveryRecord): Promise<Item> {
    const { body, ...rest } = delivery;
    const base: Item = {
      ...plain(rest),
      ...deliveryKey({
        notificationId: delivery.notificationId,
        deliveryId: delivery.id,
        createdAt: delivery.createdAt,
      }),
      ttl: Math.floor(Date.parse(delivery.createdAt) / 1000) + deliveryRetentionInSeconds,
    };
    if (Buffer.byteLength(body, 'utf8') <= inlineBodyLimitInBytes) return { ...base, body };
    const blobs = requireBlobStore(
      this.options.blobStore,
      `The body of delivery ${delivery.id} is ${Buffer.byteLength(body, 'utf8')} bytes`,
    );
    const key = `executions/notifications/${delivery.id}.json`;
    await blobs.putJsonText(key, JSON.stringify({ body }));
    return { ...base, bodyBlobKey: key };
  }

  private async deliveryOf(item: Item): Promise<DeliveryRecord> {
    const record = withoutAttributes<DeliveryRecord & { bodyBlobKey?: string; ttl?: number }>(item, ['ttl']);
    const { bodyBlobKey, ...rest } = record;
    if (typeof bodyBlobKey !== 'string') return rest;
    const blobs = requireBlobStore(
      this.options.blobStore,
      `The body of delivery ${record.id} is kept in the blob store`,
    );
    const { body } = await readPointedBlob<{ body: string }>(blobs, bodyBlobKey);
    return { ...rest, body };
  }
}
