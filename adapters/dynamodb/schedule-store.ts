/**
 * ScheduleStore on the `entities` table: one item per scheduled workflow, in the workflow's
 * partition.
 *
 * | item     | pk        | sk         | gsi2pk      | gsi2sk                    |
 * |----------|-----------|------------|-------------|---------------------------|
 * | schedule | `WF#<id>` | `SCHEDULE` | `SCHEDULES` | `<nextRunAt>#<workflowId>` |
 *
 * The gsi2 keys are there only while the schedule is enabled and has a next fire, so the local
 * scheduler finds what is due with one Query of that partition, earliest first, never a Scan; a
 * disabled schedule drops out of the index. No other item of the table writes gsi2pk `SCHEDULES`.
 * The input is kept as JSON text (`inputJson`), so its depth is not bound by DynamoDB's 32 levels
 * of nested maps; `nextRunAt` is absent rather than null, so conditions can test it.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FireRecord, Schedule, ScheduleStore } from '../../core/schedules/types';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import {
  DynamoTable,
  ENTITIES_TABLE_ENV,
  type Item,
  isConditionalCheckFailed,
  plain,
  withoutAttributes,
} from './dynamo-table';

const SCHEDULES_PARTITION = 'SCHEDULES';

const scheduleKey = (workflowId: string) => ({ pk: `WF#${workflowId}`, sk: 'SCHEDULE' });
const byNextRun = (nextRunAt: string, workflowId: string) => `${nextRunAt}#${workflowId}`;

export class DynamoScheduleStore extends DynamoTable implements ScheduleStore {
  /** The store on the process's document client and the table named by `ENTITIES_TABLE`. */
  static fromEnv(): DynamoScheduleStore {
    return new DynamoScheduleStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(ENTITIES_TABLE_ENV),
    });
  }

  async putSchedule(schedule: Schedule): Promise<void> {
    const { input, nextRunAt, ...rest } = plain(schedule);
    const indexed = schedule.enabled && nextRunAt !== null;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...rest,
          inputJson: JSON.stringify(input),
          ...(nextRunAt === null ? {} : { nextRunAt }),
          ...scheduleKey(schedule.workflowId),
          ...(indexed
            ? { gsi2pk: SCHEDULES_PARTITION, gsi2sk: byNextRun(nextRunAt, schedule.workflowId) }
            : {}),
        },
      }),
    );
  }

  async getSchedule(workflowId: string): Promise<Schedule | undefined> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: scheduleKey(workflowId), ConsistentRead: true }),
    );
    return result.Item && toSchedule(result.Item as Item);
  }

  async deleteSchedule(workflowId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: scheduleKey(workflowId) }));
  }

  async listSchedulesByNextRun(options: { until?: Date; limit: number }): Promise<Schedule[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi2',
        // `~` sorts after every character of a workflow id, so the bound takes every id at that instant.
        KeyConditionExpression:
          options.until === undefined ? 'gsi2pk = :pk' : 'gsi2pk = :pk AND gsi2sk <= :until',
        ExpressionAttributeValues: {
          ':pk': SCHEDULES_PARTITION,
          ...(options.until === undefined ? {} : { ':until': `${options.until.toISOString()}#~` }),
        },
        ScanIndexForward: true,
        Limit: options.limit,
      }),
    );
    return ((result.Items ?? []) as Item[]).map(toSchedule);
  }

  async advanceSchedule(
    workflowId: string,
    expected: Pick<Schedule, 'nextRunAt' | 'updatedAt'>,
    nextRunAt: string | null,
  ): Promise<boolean> {
    const values: Record<string, unknown> = { ':updatedAt': expected.updatedAt, ':enabled': true };
    let expectedNext = 'attribute_not_exists(nextRunAt)';
    if (expected.nextRunAt !== null) {
      expectedNext = 'nextRunAt = :expectedNext';
      values[':expectedNext'] = expected.nextRunAt;
    }
    let update: string;
    if (nextRunAt === null) {
      update = 'REMOVE nextRunAt, gsi2pk, gsi2sk';
    } else {
      update = 'SET nextRunAt = :next, gsi2pk = :pk, gsi2sk = :sk';
      values[':next'] = nextRunAt;
      values[':pk'] = SCHEDULES_PARTITION;
      values[':sk'] = byNextRun(nextRunAt, workflowId);
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: scheduleKey(workflowId),
          UpdateExpression: update,
          // A disabled schedule has no index keys and must not get them back from a late fire.
          ConditionExpression: `${expectedNext} AND updatedAt = :updatedAt AND enabled = :enabled`,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  async recordFire(workflowId: string, fire: FireRecord): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: scheduleKey(workflowId),
          UpdateExpression:
            fire.error === undefined
              ? 'SET lastRunAt = :time REMOVE lastError'
              : 'SET lastRunAt = :time, lastError = :error',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(lastRunAt) OR lastRunAt < :time)',
          ExpressionAttributeValues: {
            ':time': fire.scheduledTime,
            ...(fire.error === undefined ? {} : { ':error': fire.error }),
          },
        }),
      );
    } catch (error) {
      // An older or repeated fire, or a schedule deleted meanwhile: there is nothing to note.
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
}

function toSchedule(item: Item): Schedule {
  const record = withoutAttributes<Omit<Schedule, 'input' | 'nextRunAt'>>(item, ['inputJson', 'nextRunAt']);
  return {
    ...record,
    input: JSON.parse(String(item.inputJson ?? '{}')) as Record<string, unknown>,
    nextRunAt: typeof item.nextRunAt === 'string' ? item.nextRunAt : null,
  };
}
