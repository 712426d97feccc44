/**
 * LimitsStore on the `limits` table.
 *
 * | item           | pk                      | sk        | attributes                                         |
 * |----------------|-------------------------|-----------|----------------------------------------------------|
 * | owner's limits | `LIMITS#<ownerKey>`     | `LIMITS`  | `tat_<bucketId>`, `cost_<YYYY-MM>`, `pendingRuns` (SS)|
 * | run cost mark  | `RUNCOST#<executionId>` | `RUNCOST` | `ttl`                                              |
 *
 * A token is taken with one conditional update on the bucket's `tat` (core/limits/token-bucket.ts):
 * a busy bucket moves it on by one interval if it is within the burst; an idle one (or a new one)
 * is set to now plus one interval. Only when the first guess about the bucket is wrong does
 * another update run (at most three in all), so concurrent requests never admit more than the
 * burst and nothing is read-modified-written. The update answers the whole item, so the period's
 * cost comes with the token.
 *
 * A run's cost is added once without a transaction (dynalite has none): the add also puts the
 * execution id in `pendingRuns` on the condition that it is not there yet, then the run's mark is
 * put, then the id leaves the set. A repeated call finds the mark and adds nothing; one that comes
 * after a crash between the add and the mark finds the id still pending.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LimitsStore, OwnerLimits, TakeOutcome } from '../../core/limits/types';
import { admitLimitInMs, type BucketRate, intervalInMs } from '../../core/limits/token-bucket';
import { dynamoDocumentClient, requireEnv } from '../aws/clients';
import { DynamoTable, LIMITS_TABLE_ENV, type Item, isConditionalCheckFailed } from './shared';

const limitsKey = (ownerKey: string) => ({ pk: `LIMITS#${ownerKey}`, sk: 'LIMITS' });
const runCostKey = (executionId: string) => ({ pk: `RUNCOST#${executionId}`, sk: 'RUNCOST' });
const tatAttribute = (bucketId: string) => `tat_${bucketId}`;
const costAttribute = (period: string) => `cost_${period}`;

/** Long past any redelivery of a run's Finalize. */
const runCostMarkRetentionInSeconds = 30 * 24 * 3600;

export class DynamoLimitsStore extends DynamoTable implements LimitsStore {
  static fromEnv(): DynamoLimitsStore {
    return new DynamoLimitsStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(LIMITS_TABLE_ENV),
    });
  }

  async take(
    ownerKey: string,
    bucketId: string,
    rate: BucketRate,
    nowInMs: number,
    period?: string,
  ): Promise<TakeOutcome> {
    const interval = intervalInMs(rate);
    const busy = () =>
      this.updateTat(ownerKey, bucketId, 'SET #tat = #tat + :interval', '#tat >= :now AND #tat <= :limit', {
        ':interval': interval,
        ':now': nowInMs,
        ':limit': admitLimitInMs(rate, nowInMs),
      });
    const idle = () =>
      this.updateTat(ownerKey, bucketId, 'SET #tat = :next', 'attribute_not_exists(#tat) OR #tat < :now', {
        ':next': nowInMs + interval,
        ':now': nowInMs,
      });
    // Busy first (the common case under load), then idle; an idle update that lost to a concurrent
    // one finds the bucket busy now, so busy is tried once more before the request is refused.
    const item = (await busy()) ?? (await idle()) ?? (await busy());
    const costOf = (found: Item | undefined) => (period ? Number(found?.[costAttribute(period)] ?? 0) : 0);
    if (item) {
      return { admitted: true, tatInMs: Number(item[tatAttribute(bucketId)]), periodCostUsd: costOf(item) };
    }
    // Neither: the bucket is beyond its burst. Read it only now, to say when the next token comes.
    const found = await this.get(limitsKey(ownerKey));
    return {
      admitted: false,
      tatInMs: Number(found?.[tatAttribute(bucketId)] ?? nowInMs),
      periodCostUsd: costOf(found),
    };
  }

  async read(ownerKey: string, period: string): Promise<OwnerLimits> {
    const item = await this.get(limitsKey(ownerKey));
    const tatInMs: OwnerLimits['tatInMs'] = {};
    for (const [name, value] of Object.entries(item ?? {})) {
      if (name.startsWith('tat_')) tatInMs[name.slice(4)] = Number(value);
    }
    return { tatInMs, periodCostUsd: Number(item?.[costAttribute(period)] ?? 0) };
  }

  async addRunCost(ownerKey: string, period: string, executionId: string, costInUsd: number): Promise<void> {
    if (!(await this.get(runCostKey(executionId)))) {
      await this.addPending(ownerKey, period, executionId, costInUsd);
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...runCostKey(executionId),
            ownerKey,
            period,
            costInUsd,
            ttl: Math.floor(Date.now() / 1000) + runCostMarkRetentionInSeconds,
          },
        }),
      );
    }
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: limitsKey(ownerKey),
        UpdateExpression: 'DELETE pendingRuns :run',
        ExpressionAttributeValues: { ':run': new Set([executionId]) },
      }),
    );
  }

  /** Adds the cost unless the execution id is pending already (an earlier call stopped half-way). */
  private async addPending(ownerKey: string, period: string, executionId: string, costInUsd: number) {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: limitsKey(ownerKey),
          UpdateExpression: 'ADD #cost :cost, pendingRuns :run',
          ConditionExpression: 'attribute_not_exists(pendingRuns) OR NOT contains(pendingRuns, :id)',
          ExpressionAttributeNames: { '#cost': costAttribute(period) },
          ExpressionAttributeValues: {
            ':cost': costInUsd,
            ':run': new Set([executionId]),
            ':id': executionId,
          },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }

  /** The whole item after the update, or undefined when the condition did not hold. */
  private updateTat(
    ownerKey: string,
    bucketId: string,
    expression: string,
    condition: string,
    values: Record<string, number>,
  ): Promise<Item | undefined> {
    return this.updateWhere({
      Key: limitsKey(ownerKey),
      UpdateExpression: expression,
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#tat': tatAttribute(bucketId) },
      ExpressionAttributeValues: values,
    });
  }
}
