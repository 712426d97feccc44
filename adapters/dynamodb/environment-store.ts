/**
 * EnvironmentStore on the `entities` table: one item per variable in the workspace's partition,
 * holding only the ciphertext (the value never reaches DynamoDB in clear).
 *
 * | item                  | pk                 | sk           |
 * |-----------------------|--------------------|--------------|
 * | environment variable  | `WS#<workspaceId>` | `ENV#<NAME>` |
 *
 * Listing is a Query on the partition with `begins_with(sk, 'ENV#')`, so variables come back
 * ordered by name. An item is at most ~90 KB (a 64 KB value, base64url, plus the wrapped data key).
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import type { EnvironmentStore, EnvironmentVariableRecord } from '../../core/environment/types';
import {
  DynamoTable,
  ENTITIES_TABLE_ENV,
  type Item,
  plain,
  queryAll,
  withoutAttributes,
} from './dynamo-table';

const prefix = 'ENV#';
const variableKey = (workspaceId: string, name: string) => ({
  pk: `WS#${workspaceId}`,
  sk: `${prefix}${name}`,
});

export class DynamoEnvironmentStore extends DynamoTable implements EnvironmentStore {
  /** The store on the shared document client and the table named by `ENTITIES_TABLE`. */
  static fromEnv(): DynamoEnvironmentStore {
    return new DynamoEnvironmentStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(ENTITIES_TABLE_ENV),
    });
  }

  async putVariable(record: EnvironmentVariableRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...plain(record), ...variableKey(record.workspaceId, record.name) },
      }),
    );
  }

  async getVariable(workspaceId: string, name: string): Promise<EnvironmentVariableRecord | undefined> {
    const result = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: variableKey(workspaceId, name),
        ConsistentRead: true,
      }),
    );
    return result.Item && withoutAttributes<EnvironmentVariableRecord>(result.Item as Item);
  }

  async listVariables(workspaceId: string): Promise<EnvironmentVariableRecord[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `WS#${workspaceId}`, ':prefix': prefix },
      ConsistentRead: true,
    });
    return items.map((item) => withoutAttributes<EnvironmentVariableRecord>(item));
  }

  /** A Query that returns only the count, so no ciphertext is read to count. */
  async countVariables(workspaceId: string): Promise<number> {
    let count = 0;
    let exclusiveStartKey: Item | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': `WS#${workspaceId}`, ':prefix': prefix },
          Select: 'COUNT',
          ConsistentRead: true,
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      count += page.Count ?? 0;
      exclusiveStartKey = page.LastEvaluatedKey as Item | undefined;
    } while (exclusiveStartKey);
    return count;
  }

  async deleteVariable(workspaceId: string, name: string): Promise<EnvironmentVariableRecord | undefined> {
    const result = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: variableKey(workspaceId, name),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return result.Attributes && withoutAttributes<EnvironmentVariableRecord>(result.Attributes as Item);
  }
}
