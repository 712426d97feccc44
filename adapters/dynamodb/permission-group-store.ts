/**
 * PermissionGroupStore on the `entities` table, in the partition of the organization (beside its
 * members, see identity-store.ts): its groups and who is in which are read with one Query, and a
 * user's membership with one GetItem, as each user is in one group of the organization at most.
 *
 * | item                      | pk          | sk                    |
 * |---------------------------|-------------|-----------------------|
 * | permission group          | `ORG#<id>`  | `PGROUP#<groupId>`    |
 * | permission group member   | `ORG#<id>`  | `PGMEMBER#<userId>`   |
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import { ConflictError } from '../../core/errors';
import type {
  PermissionGroup,
  PermissionGroupMembership,
  PermissionGroupStore,
  PermissionGroupView,
} from '../../core/permissions/types';
import {
  DynamoTable,
  ENTITIES_TABLE_ENV,
  isConditionalCheckFailed,
  plain,
  withoutAttributes,
} from './dynamo-table';

const groupPrefix = 'PGROUP#';
const memberPrefix = 'PGMEMBER#';
const groupKey = (organizationId: string, groupId: string) => ({
  pk: `ORG#${organizationId}`,
  sk: `${groupPrefix}${groupId}`,
});
const memberKey = (organizationId: string, userId: string) => ({
  pk: `ORG#${organizationId}`,
  sk: `${memberPrefix}${userId}`,
});

export class DynamoPermissionGroupStore extends DynamoTable implements PermissionGroupStore {
  static fromEnv(): DynamoPermissionGroupStore {
    return new DynamoPermissionGroupStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(ENTITIES_TABLE_ENV),
    });
  }

  async createGroup(group: PermissionGroup): Promise<void> {
    if (!(await this.putGroup(group, 'attribute_not_exists(pk)'))) {
      throw new ConflictError(`A permission group with id ${group.id} exists`);
    }
  }

  async getGroup(organizationId: string, groupId: string): Promise<PermissionGroup | undefined> {
    const item = await this.get(groupKey(organizationId, groupId));
    return item && withoutAttributes<PermissionGroup>(item);
  }

  async updateGroup(group: PermissionGroup): Promise<PermissionGroup | undefined> {
    return (await this.putGroup(group, 'attribute_exists(pk)')) ? group : undefined;
  }

  /** Members first: a delete cut short leaves a smaller group, which the next attempt removes. */
  async deleteGroup(organizationId: string, groupId: string): Promise<PermissionGroup | undefined> {
    for (const member of await this.listMembers(organizationId, groupId)) {
      await this.removeMember(organizationId, groupId, member.userId);
    }
    const deleted = await this.deleteItem(groupKey(organizationId, groupId));
    return deleted && withoutAttributes<PermissionGroup>(deleted);
  }

  async listGroups(organizationId: string): Promise<PermissionGroupView[]> {
    const items = await this.queryPartition(`ORG#${organizationId}`, 'PG');
    const members = new Map<string, string[]>();
    for (const item of items) {
      if (!String(item.sk).startsWith(memberPrefix)) continue;
      const groupId = String(item.groupId);
      members.set(groupId, [...(members.get(groupId) ?? []), String(item.userId)]);
    }
    return items
      .filter((item) => String(item.sk).startsWith(groupPrefix))
      .map((item) => withoutAttributes<PermissionGroup>(item))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((group) => ({ ...group, members: members.get(group.id) ?? [] }));
  }

  async listMembers(organizationId: string, groupId: string): Promise<PermissionGroupMembership[]> {
    const items = await this.queryPartition(`ORG#${organizationId}`, memberPrefix);
    return items
      .filter((item) => item.groupId === groupId)
      .map((item) => withoutAttributes<PermissionGroupMembership>(item));
  }

  async addMember(membership: PermissionGroupMembership): Promise<void> {
    const key = memberKey(membership.organizationId, membership.userId);
    const put = (condition: string, groupId: string) =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...plain(membership), ...key },
          ConditionExpression: condition,
          ExpressionAttributeValues: { ':groupId': groupId },
        }),
      );
    try {
      await put('attribute_not_exists(pk) OR groupId = :groupId', membership.groupId);
      return;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    const existing = await this.get(key);
    const otherGroupId = String(existing?.groupId);
    if (existing && (await this.getGroup(membership.organizationId, otherGroupId))) {
      throw new ConflictError(
        `User ${membership.userId} is in permission group ${otherGroupId} already: a user is in one group of an organization at most, so remove them from it first`,
      );
    }
    // The other group was deleted half-way: its membership is stale and gives way.
    try {
      await put(
        'attribute_not_exists(pk) OR groupId = :groupId',
        existing ? otherGroupId : membership.groupId,
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      throw new ConflictError(`User ${membership.userId} was just put in another permission group`);
    }
  }

  async removeMember(
    organizationId: string,
    groupId: string,
    userId: string,
  ): Promise<PermissionGroupMembership | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: memberKey(organizationId, userId),
          ConditionExpression: 'groupId = :groupId',
          ExpressionAttributeValues: { ':groupId': groupId },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return Attributes && withoutAttributes<PermissionGroupMembership>(Attributes);
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }

  async findMembership(
    organizationId: string,
    userId: string,
  ): Promise<PermissionGroupMembership | undefined> {
    const item = await this.get(memberKey(organizationId, userId));
    return item && withoutAttributes<PermissionGroupMembership>(item);
  }

  /** False when the condition did not hold. */
  private async putGroup(group: PermissionGroup, condition: string): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...plain(group), ...groupKey(group.organizationId, group.id) },
          ConditionExpression: condition,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
}
