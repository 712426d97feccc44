/**
 * InvitationStore on the `entities` table: GetItem, conditional writes and Queries on gsi1 (no Scan).
 *
 * | item       | pk                 | sk       | gsi1pk                                          | gsi1sk                        |
 * |------------|--------------------|----------|-------------------------------------------------|-------------------------------|
 * | invitation | `INVITE#<id>`      | `INVITE` | `INVITES#ORG#<orgId>` or `INVITES#WS#<wsId>`    | `INVITE#<createdAt>#<id>`     |
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import type { Invitation, InvitationStore } from '../../core/invitations/types';
import { DynamoTable, ENTITIES_TABLE_ENV, plain, queryAll, withoutAttributes } from './dynamo-table';

const invitationKey = (invitationId: string) => ({ pk: `INVITE#${invitationId}`, sk: 'INVITE' });

function scopeOf(invitation: Invitation): string {
  if (invitation.organizationId) return `INVITES#ORG#${invitation.organizationId}`;
  if (invitation.workspaceId) return `INVITES#WS#${invitation.workspaceId}`;
  throw new Error(`Invitation ${invitation.id} is into neither an organization nor a workspace`);
}

export class DynamoInvitationStore extends DynamoTable implements InvitationStore {
  static fromEnv(): DynamoInvitationStore {
    return new DynamoInvitationStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(ENTITIES_TABLE_ENV),
    });
  }

  async create(invitation: Invitation): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...plain(invitation),
          ...invitationKey(invitation.id),
          gsi1pk: scopeOf(invitation),
          gsi1sk: `INVITE#${invitation.createdAt}#${invitation.id}`,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async find(invitationId: string): Promise<Invitation | undefined> {
    const item = await this.get(invitationKey(invitationId));
    return item && withoutAttributes<Invitation>(item);
  }

  listForOrganization(organizationId: string): Promise<Invitation[]> {
    return this.listScope(`INVITES#ORG#${organizationId}`);
  }

  listForWorkspace(workspaceId: string): Promise<Invitation[]> {
    return this.listScope(`INVITES#WS#${workspaceId}`);
  }

  async settle(
    invitationId: string,
    change: { status: 'accepted'; acceptedAt: string; acceptedBy: string } | { status: 'revoked' },
  ): Promise<Invitation | undefined> {
    const item = await this.updateWhere({
      Key: invitationKey(invitationId),
      UpdateExpression:
        change.status === 'accepted'
          ? 'SET #status = :status, acceptedAt = :acceptedAt, acceptedBy = :acceptedBy'
          : 'SET #status = :status',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ...Object.fromEntries(Object.entries(change).map(([name, value]) => [`:${name}`, value])),
      },
    });
    return item && withoutAttributes<Invitation>(item);
  }

  private async listScope(scope: string): Promise<Invitation[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': scope },
      ScanIndexForward: false,
    });
    return items.map((item) => withoutAttributes<Invitation>(item));
  }
}
