/**
 * IdentityStore on the `entities` table. Every method is a GetItem, a conditional write or a Query
 * on a key built for it (no Scan); nothing needs TransactWriteItems.
 *
 * | item                     | pk                  | sk                 | gsi1pk         | gsi1sk                 |
 * |--------------------------|---------------------|--------------------|----------------|------------------------|
 * | user                     | `USER#<id>`         | `USER`             |                |                        |
 * | e-mail claim (unique)    | `EMAIL#<email lc>`  | `EMAIL`            |                |                        |
 * | API key                  | `APIKEY#<hash>`     | `APIKEY`           | `USER#<userId>`| `APIKEY#<keyId>`       |
 * | workspace                | `WS#<id>`           | `WS`               |                |                        |
 * | workspace membership     | `WS#<workspaceId>`  | `MEMBER#<userId>`  | `USER#<userId>`| `WSMEMBER#<wsId>`      |
 * | organization             | `ORG#<id>`          | `ORG`              | `ORGS`         | `ORG#<id>`             |
 * | organization membership  | `ORG#<orgId>`       | `MEMBER#<userId>`  | `USER#<userId>`| `ORGMEMBER#<orgId>`    |
 * | organization's workspace | `ORG#<orgId>`       | `WS#<workspaceId>` |                |                        |
 *
 * An organization's workspace item is a copy of the workspace (workspaces are never renamed), so
 * listing them is one Query. Organizations stored before the `ORGS` index entry existed are not
 * listed by listOrganizations, but every other read finds them.
 */
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import { ConflictError } from '../../core/errors';
import type {
  ApiKeyRecord,
  IdentityStore,
  LimitsPatch,
  Organization,
  OrganizationMembership,
  User,
  Workspace,
  WorkspaceMembership,
} from '../../core/identity/types';
import {
  DynamoTable,
  ENTITIES_TABLE_ENV,
  type Item,
  isConditionalCheckFailed,
  plain,
  queryAll,
  withoutAttributes,
  withoutLimits,
} from './dynamo-table';

/** The form in which an e-mail address is unique: trimmed and lowercased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const userKey = (userId: string) => ({ pk: `USER#${userId}`, sk: 'USER' });
const emailKey = (email: string) => ({ pk: `EMAIL#${normalizeEmail(email)}`, sk: 'EMAIL' });
const apiKeyKey = (hash: string) => ({ pk: `APIKEY#${hash}`, sk: 'APIKEY' });
const workspaceKey = (workspaceId: string) => ({ pk: `WS#${workspaceId}`, sk: 'WS' });
const workspaceMemberKey = (workspaceId: string, userId: string) => ({
  pk: `WS#${workspaceId}`,
  sk: `MEMBER#${userId}`,
});
const organizationKey = (organizationId: string) => ({ pk: `ORG#${organizationId}`, sk: 'ORG' });
const organizationWorkspaceKey = (organizationId: string, workspaceId: string) => ({
  pk: `ORG#${organizationId}`,
  sk: `WS#${workspaceId}`,
});
const organizationMemberKey = (organizationId: string, userId: string) => ({
  pk: `ORG#${organizationId}`,
  sk: `MEMBER#${userId}`,
});

export class DynamoIdentityStore extends DynamoTable implements IdentityStore {
  /** The store on the shared document client and the table named by `ENTITIES_TABLE`. */
  static fromEnv(): DynamoIdentityStore {
    return new DynamoIdentityStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(ENTITIES_TABLE_ENV),
    });
  }

  // Users

  /**
   * Claims the e-mail address first (a conditional put on its own item), then stores the user.
   * A claim that already belongs to this user id (a retried call that stopped half-way) is reused.
   */
  async createUser(user: User): Promise<void> {
    const claimedNow = await this.claimEmail(user);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...plain(user), ...userKey(user.id) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      if (claimedNow) await this.releaseEmail(user);
      throw new ConflictError(`A user with id ${user.id} exists`, { cause: error });
    }
  }

  async getUser(userId: string): Promise<User | undefined> {
    const item = await this.get(userKey(userId));
    return item && withoutLimits<User>(item);
  }

  async updateUserLimits(userId: string, patch: LimitsPatch): Promise<User | undefined> {
    const item = await this.updateLimits(userKey(userId), patch);
    return item && withoutLimits<User>(item);
  }

  async setUserOrganization(userId: string, organizationId: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: userKey(userId),
          UpdateExpression: 'SET organizationId = :org',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(organizationId) OR organizationId = :org)',
          ExpressionAttributeValues: { ':org': organizationId },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const user = await this.getUser(userId);
      throw new ConflictError(
        user
          ? `User ${userId} belongs to organization ${user.organizationId} already: a user belongs to one organization`
          : `User ${userId} not found`,
        { cause: error },
      );
    }
  }

  /** The user who holds this e-mail address (any case), if any. */
  async findUserByEmail(email: string): Promise<User | undefined> {
    const claim = await this.get(emailKey(email));
    return claim ? this.getUser(String(claim.userId)) : undefined;
  }

  /** Returns true when this call created the claim, false when the user already held it. */
  private async claimEmail(user: User): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...emailKey(user.email), userId: user.id, email: normalizeEmail(user.email) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const claim = await this.get(emailKey(user.email));
      if (claim?.userId === user.id) return false;
      throw new ConflictError(`A user with e-mail ${user.email} exists`, { cause: error });
    }
  }

  private async releaseEmail(user: User): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: emailKey(user.email),
          ConditionExpression: 'userId = :userId',
          ExpressionAttributeValues: { ':userId': user.id },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }

  // API keys

  /** Stores the key under its hash; a different key with the same hash is a ConflictError. */
  async putApiKey(record: ApiKeyRecord): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...plain(record),
            ...apiKeyKey(record.hash),
            gsi1pk: `USER#${record.userId}`,
            gsi1sk: `APIKEY#${record.id}`,
          },
          // Re-putting the same key (same id and user) is allowed; taking over another's hash is not.
          ConditionExpression: 'attribute_not_exists(pk) OR (id = :id AND userId = :userId)',
          ExpressionAttributeValues: { ':id': record.id, ':userId': record.userId },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      throw new ConflictError('An API key with this hash exists', { cause: error });
    }
  }

  /** The authentication hot path: one strongly consistent GetItem. */
  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const item = await this.get(apiKeyKey(hash));
    return item && withoutAttributes<ApiKeyRecord>(item);
  }

  async listApiKeys(userId: string): Promise<ApiKeyRecord[]> {
    const items = await this.queryUserIndex(userId, 'APIKEY#');
    return items.map((item) => withoutAttributes<ApiKeyRecord>(item));
  }

  async deleteApiKey(userId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    const [found] = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':sk': `APIKEY#${keyId}` },
    });
    if (!found) return undefined;
    try {
      const result = await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: apiKeyKey(String(found.hash)),
          // The index is eventually consistent: delete only if the item is still this user's key.
          ConditionExpression: 'userId = :userId AND id = :id',
          ExpressionAttributeValues: { ':userId': userId, ':id': keyId },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return result.Attributes && withoutAttributes<ApiKeyRecord>(result.Attributes);
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }

  // Workspaces

  /**
   * Stores the workspace (ConflictError if another workspace has its id), then its owner's
   * membership. A retried call whose workspace was stored already completes the membership.
   */
  async createWorkspace(workspace: Workspace, owner: WorkspaceMembership): Promise<void> {
    if (owner.workspaceId !== workspace.id) {
      throw new Error(`The owner membership is for workspace ${owner.workspaceId}, not ${workspace.id}`);
    }
    await this.putOnce(workspaceKey(workspace.id), workspace, `A workspace with id ${workspace.id} exists`);
    await this.putWorkspaceMembership(owner);
    if (workspace.organizationId) {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...plain(workspace), ...organizationWorkspaceKey(workspace.organizationId, workspace.id) },
        }),
      );
    }
  }

  async listOrganizationWorkspaces(organizationId: string): Promise<Workspace[]> {
    const items = await this.queryPartition(`ORG#${organizationId}`, 'WS#');
    return items.map((item) => withoutAttributes<Workspace>(item));
  }

  async getWorkspace(workspaceId: string): Promise<Workspace | undefined> {
    const item = await this.get(workspaceKey(workspaceId));
    return item && withoutAttributes<Workspace>(item);
  }

  async putWorkspaceMembership(membership: WorkspaceMembership): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...plain(membership),
          ...workspaceMemberKey(membership.workspaceId, membership.userId),
          gsi1pk: `USER#${membership.userId}`,
          gsi1sk: `WSMEMBER#${membership.workspaceId}`,
        },
      }),
    );
  }

  async getWorkspaceMembership(
    workspaceId: string,
    userId: string,
  ): Promise<WorkspaceMembership | undefined> {
    const item = await this.get(workspaceMemberKey(workspaceId, userId));
    return item && withoutAttributes<WorkspaceMembership>(item);
  }

  async deleteWorkspaceMembership(
    workspaceId: string,
    userId: string,
  ): Promise<WorkspaceMembership | undefined> {
    const deleted = await this.deleteItem(workspaceMemberKey(workspaceId, userId));
    return deleted && withoutAttributes<WorkspaceMembership>(deleted);
  }

  async listWorkspaceMembershipsOfUser(userId: string): Promise<WorkspaceMembership[]> {
    const items = await this.queryUserIndex(userId, 'WSMEMBER#');
    return items.map((item) => withoutAttributes<WorkspaceMembership>(item));
  }

  /** Every member of a workspace (a Query on the workspace's partition). */
  async listWorkspaceMembers(workspaceId: string): Promise<WorkspaceMembership[]> {
    const items = await this.queryPartition(`WS#${workspaceId}`, 'MEMBER#');
    return items.map((item) => withoutAttributes<WorkspaceMembership>(item));
  }

  // Organizations

  /** Like createWorkspace: the organization (ConflictError if its id is taken), then its owner. */
  async createOrganization(organization: Organization, owner: OrganizationMembership): Promise<void> {
    if (owner.organizationId !== organization.id) {
      throw new Error(
        `The owner membership is for organization ${owner.organizationId}, not ${organization.id}`,
      );
    }
    await this.putOnce(
      organizationKey(organization.id),
      organization,
      `An organization with id ${organization.id} exists`,
      { gsi1pk: 'ORGS', gsi1sk: `ORG#${organization.id}` },
    );
    await this.putOrganizationMembership(owner);
  }

  async getOrganization(organizationId: string): Promise<Organization | undefined> {
    const item = await this.get(organizationKey(organizationId));
    return item && organizationOf(item);
  }

  async updateOrganizationLimits(
    organizationId: string,
    patch: LimitsPatch,
  ): Promise<Organization | undefined> {
    const item = await this.updateLimits(organizationKey(organizationId), patch);
    return item && organizationOf(item);
  }

  async listOrganizations(): Promise<Organization[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': 'ORGS' },
    });
    return items.map(organizationOf);
  }

  async putOrganizationMembership(membership: OrganizationMembership): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...plain(membership),
          ...organizationMemberKey(membership.organizationId, membership.userId),
          gsi1pk: `USER#${membership.userId}`,
          gsi1sk: `ORGMEMBER#${membership.organizationId}`,
        },
      }),
    );
  }

  async getOrganizationMembership(
    organizationId: string,
    userId: string,
  ): Promise<OrganizationMembership | undefined> {
    const item = await this.get(organizationMemberKey(organizationId, userId));
    return item && withoutAttributes<OrganizationMembership>(item);
  }

  async listOrganizationMembers(organizationId: string): Promise<OrganizationMembership[]> {
    const items = await this.queryPartition(`ORG#${organizationId}`, 'MEMBER#');
    return items.map((item) => withoutAttributes<OrganizationMembership>(item));
  }

  /**
   * The membership first, then the user's organization (only if it is still this one), so a
   * retried call finishes what an interrupted one began.
   */
  async removeOrganizationMember(
    organizationId: string,
    userId: string,
  ): Promise<OrganizationMembership | undefined> {
    const deleted = await this.deleteItem(organizationMemberKey(organizationId, userId));
    await this.updateWhere({
      Key: userKey(userId),
      UpdateExpression: 'REMOVE organizationId',
      ConditionExpression: 'organizationId = :org',
      ExpressionAttributeValues: { ':org': organizationId },
    });
    return deleted && withoutAttributes<OrganizationMembership>(deleted);
  }

  /** The organizations a user belongs to (their plan applies to the user's rate limits). */
  async listOrganizationMembershipsOfUser(userId: string): Promise<OrganizationMembership[]> {
    const items = await this.queryUserIndex(userId, 'ORGMEMBER#');
    return items.map((item) => withoutAttributes<OrganizationMembership>(item));
  }

  // Helpers

  /** Sets the plan and the usage limit (null removes it) of an existing item; undefined if none. */
  private async updateLimits(key: { pk: string; sk: string }, patch: LimitsPatch): Promise<Item | undefined> {
    const set: string[] = [];
    const remove: string[] = [];
    const values: Record<string, unknown> = {};
    if (patch.plan !== undefined) {
      set.push('#plan = :plan');
      values[':plan'] = patch.plan;
    }
    if (patch.usageLimitUsd === null) remove.push('usageLimitUsd');
    else if (patch.usageLimitUsd !== undefined) {
      set.push('usageLimitUsd = :usageLimitUsd');
      values[':usageLimitUsd'] = patch.usageLimitUsd;
    }
    if (set.length === 0 && remove.length === 0) return this.get(key);
    return this.updateWhere({
      Key: key,
      UpdateExpression: [
        set.length ? `SET ${set.join(', ')}` : '',
        remove.length ? `REMOVE ${remove.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' '),
      ConditionExpression: 'attribute_exists(pk)',
      ...(patch.plan !== undefined ? { ExpressionAttributeNames: { '#plan': 'plan' } } : {}),
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
    });
  }

  private queryUserIndex(userId: string, prefix: string): Promise<Item[]> {
    return queryAll(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':prefix': prefix },
    });
  }

  /**
   * Puts an item that must not exist yet. When it does, the same record stored by an earlier
   * attempt of the same call is accepted; anything else is a ConflictError with `message`.
   */
  private async putOnce(
    key: { pk: string; sk: string },
    record: object,
    message: string,
    indexKeys: Item = {},
  ): Promise<void> {
    const value = plain(record);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...value, ...key, ...indexKeys },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const existing = await this.get(key);
      if (existing && sameRecord(withoutAttributes(existing), value)) return;
      throw new ConflictError(message, { cause: error });
    }
  }
}

/** Organizations stored before plans existed are on the free plan. */
function organizationOf(item: Item): Organization {
  const organization = withoutLimits<Organization>(item);
  return { ...organization, plan: organization.plan ?? 'free' };
}

function sameRecord(a: Item, b: object): boolean {
  const sorted = (value: object) =>
    JSON.stringify(Object.fromEntries(Object.entries(value).sort(([x], [y]) => x.localeCompare(y))));
  return sorted(a) === sorted(b);
}
