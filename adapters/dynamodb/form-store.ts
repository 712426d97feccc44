/**
 * FormStore on the `entities` table. The form lives at its identifier, so the public pages find it
 * with one GetItem; a small pointer item finds it by id for the management API.
 *
 * | item    | pk                    | sk     | gsi1pk               | gsi1sk             | gsi2pk                 | gsi2sk |
 * |---------|-----------------------|--------|----------------------|--------------------|------------------------|--------|
 * | form    | `FORM#<identifier>`   | `FORM` | `FORMS#<workspaceId>`| `<createdAt>#<id>` | `FORMWF#<workflowId>`  | `<id>` |
 * | pointer | `FORMID#<id>`         | `FORM` |                      |                    |                        |        |
 *
 * An identifier is unique because a form item is put only if absent. The pointer is written before
 * the form and points at its identifier; a pointer whose form is gone, or holds another id, finds
 * nothing, so a crash between the two writes leaves no form reachable twice or not at all.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { FormRecord, FormStore } from '../../core/forms/types';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import {
  DynamoTable,
  ENTITIES_TABLE_ENV,
  type Item,
  isConditionalCheckFailed,
  plain,
  queryAll,
  withoutAttributes,
} from './dynamo-table';

const formKey = (identifier: string) => ({ pk: `FORM#${identifier}`, sk: 'FORM' });
const pointerKey = (formId: string) => ({ pk: `FORMID#${formId}`, sk: 'FORM' });

function formItem(record: FormRecord): Item {
  return {
    ...plain(record),
    ...formKey(record.identifier),
    gsi1pk: `FORMS#${record.workspaceId}`,
    gsi1sk: `${record.createdAt}#${record.id}`,
    gsi2pk: `FORMWF#${record.workflowId}`,
    gsi2sk: record.id,
  };
}

export class DynamoFormStore extends DynamoTable implements FormStore {
  static fromEnv(): DynamoFormStore {
    return new DynamoFormStore({ client: dynamoDocumentClient(), tableName: requireEnv(ENTITIES_TABLE_ENV) });
  }

  async createForm(record: FormRecord): Promise<boolean> {
    await this.putPointer(record);
    if (await this.putConditionally(formItem(record), 'attribute_not_exists(pk)')) return true;
    await this.deletePointer(record.id);
    return false;
  }

  async getFormByIdentifier(identifier: string): Promise<FormRecord | undefined> {
    const item = await this.get(formKey(identifier));
    return item ? withoutAttributes<FormRecord>(item) : undefined;
  }

  async getForm(formId: string): Promise<FormRecord | undefined> {
    const pointer = await this.get(pointerKey(formId));
    if (!pointer) return undefined;
    const form = await this.getFormByIdentifier(pointer.identifier as string);
    return form?.id === formId ? form : undefined;
  }

  async listForms(workspaceId: string): Promise<FormRecord[]> {
    return this.queryForms('gsi1', 'gsi1pk', `FORMS#${workspaceId}`);
  }

  async listWorkflowForms(workflowId: string): Promise<FormRecord[]> {
    return this.queryForms('gsi2', 'gsi2pk', `FORMWF#${workflowId}`);
  }

  async replaceForm(previous: FormRecord, next: FormRecord): Promise<boolean> {
    if (previous.id !== next.id) await this.putPointer(next);
    const stored =
      previous.identifier === next.identifier
        ? // Only over the form as it was read: a concurrent change is not overwritten.
          await this.putConditionally(formItem(next), 'id = :id AND updatedAt = :updatedAt', {
            ':id': previous.id,
            ':updatedAt': previous.updatedAt,
          })
        : await this.putConditionally(formItem(next), 'attribute_not_exists(pk)');
    if (!stored) {
      if (previous.id !== next.id) await this.deletePointer(next.id);
      return false;
    }
    if (previous.id !== next.id) await this.deletePointer(previous.id);
    if (previous.identifier === next.identifier) return true;
    await this.putPointer(next);
    await this.deleteFormItem(previous);
    return true;
  }

  async deleteForm(record: FormRecord): Promise<boolean> {
    const removed = await this.deleteFormItem(record);
    await this.deletePointer(record.id);
    return removed;
  }

  private async queryForms(indexName: string, keyName: string, key: string): Promise<FormRecord[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: indexName,
      KeyConditionExpression: `${keyName} = :pk`,
      ExpressionAttributeValues: { ':pk': key },
    });
    return items.map((item) => withoutAttributes<FormRecord>(item));
  }

  private async putPointer(record: FormRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...pointerKey(record.id), identifier: record.identifier },
      }),
    );
  }

  private async deletePointer(formId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: pointerKey(formId) }));
  }

  /** Only the form that was read: an identifier freed and taken again meanwhile stays. */
  private async deleteFormItem(record: FormRecord): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: formKey(record.identifier),
          ConditionExpression: 'id = :id',
          ExpressionAttributeValues: { ':id': record.id },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  private async putConditionally(
    item: Item,
    condition: string,
    values?: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: condition,
          ...(values ? { ExpressionAttributeValues: values } : {}),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
}
