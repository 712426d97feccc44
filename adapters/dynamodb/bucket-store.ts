/**
 * BucketStore on the `executions` table: one item per bucket, `pk` `BUCKET#<key>`, `sk` `BUCKET`,
 * holding `tat` (core/limits/token-bucket.ts). A token is taken with one conditional update: a busy
 * bucket moves `tat` on by one interval if it is within the burst; an idle one (or a new one) is set
 * to now plus one interval. Only when the first guess about the bucket is wrong does another update
 * run (at most three in all), so concurrent requests never admit more than the burst and nothing
 * is read-modified-written.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BucketStore } from '../../core/limits/types';
import { admitLimitInMs, type BucketRate, intervalInMs } from '../../core/limits/token-bucket';
import { dynamoDocumentClient, requireEnv } from '../aws/clients';
import { DynamoTable, EXECUTIONS_TABLE_ENV, isConditionalCheckFailed } from './shared';

const bucketKey = (key: string) => ({ pk: `BUCKET#${key}`, sk: 'BUCKET' });

export class DynamoBucketStore extends DynamoTable implements BucketStore {
  static fromEnv(): DynamoBucketStore {
    return new DynamoBucketStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(EXECUTIONS_TABLE_ENV),
    });
  }

  async take(key: string, rate: BucketRate, nowInMs: number) {
    const interval = intervalInMs(rate);
    const busy = () =>
      this.update(key, 'SET tat = tat + :interval', 'tat >= :now AND tat <= :limit', {
        ':interval': interval,
        ':now': nowInMs,
        ':limit': admitLimitInMs(rate, nowInMs),
      });
    const idle = () =>
      this.update(key, 'SET tat = :next', 'attribute_not_exists(tat) OR tat < :now', {
        ':next': nowInMs + interval,
        ':now': nowInMs,
      });
    // Busy first (the common case under load), then idle; an idle update that lost to a concurrent
    // one finds the bucket busy now, so busy is tried once more before the request is refused.
    const tat = (await busy()) ?? (await idle()) ?? (await busy());
    if (tat !== undefined) return { admitted: true as const, tatInMs: tat };
    // Neither: the bucket is beyond its burst. Read it only now, to say when the next token comes.
    const { Item: item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: bucketKey(key), ConsistentRead: true }),
    );
    return { admitted: false as const, tatInMs: Number(item?.tat ?? nowInMs) };
  }

  /** The new `tat`, or undefined when the condition did not hold. */
  private async update(
    key: string,
    expression: string,
    condition: string,
    values: Record<string, number>,
  ): Promise<number | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: bucketKey(key),
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.tat);
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }
}
