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
import type { LimitsStore, OwnerLimits, TakeOptions, TakeOutcome } from '../../core/limits/types';
import { admitLimitInMs, type BucketRate, intervalInMs } from '../../core/limits/token-bucket';
import { dynamoDocumentClient, requireEnv } from '../aws/clients';
import { DynamoTable, LIMITS_TABLE_ENV, type Item, isConditionalCheckFailed } from './shared';

const limitsKey = (ownerKey: string) => ({ pk: `LIMITS#${ownerKey}`, sk: 'LIMITS' });
const runCostKey = (executionId: string) => ({ pk: `RUNCOST#${executionId}`, sk: 'RUNCOST' });
const tatAttribute = (bucketId: string) => `tat_${bucketId}`;
const costAttribute = (period: string) => `cost_${period}`;

function limitsOf(item: Item | undefined, period: string): OwnerLimits {
  const tatInMs: OwnerLimits['tatInMs'] = {};
  for (const [name, value] of Object.entries(item ?? {})) {
    if (name.startsWith('tat_')) tatInMs[name.slice(4)] = Number(value);
  }
  return { tatInMs, periodCostUsd: Number(item?.[costAttribute(period)] ?? 0) };
}

/** Long past any redelivery of a run's Finalize. */
const runCostMarkRetentionInSeconds = 30 * 24 * 3600;

export class DynamoLimitsStore extends DynamoTable implements LimitsStore {
  static fromEnv(): DynamoLimitsStore {
    return new DynamoLimitsStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(LIMITS_TABLE_ENV),
    });
  }

  /**
   * The `tat` each bucket had after this process last took from it: a hint only (conditions decide),
   * so that the first update tried is the one that holds, and a take is one write, not two.
   */
  private readonly lastTatInMs = new Map<string, number>();

  async take(
    ownerKey: string,
    bucketId: string,
    rate: BucketRate,
    nowInMs: number,
    options: TakeOptions = {},
  ): Promise<TakeOutcome> {
    const interval = intervalInMs(rate);
    const charge = options.chargeUsd && options.period ? options.chargeUsd : 0;
    const update = (expression: string, condition: string, values: Record<string, number>) =>
      this.updateWhere({
        Key: limitsKey(ownerKey),
        UpdateExpression: charge ? `${expression} ADD #cost :charge` : expression,
        ConditionExpression: condition,
        ExpressionAttributeNames: {
          '#tat': tatAttribute(bucketId),
          ...(charge ? { '#cost': costAttribute(options.period as string) } : {}),
        },
        ExpressionAttributeValues: charge ? { ...values, ':charge': charge } : values,
      });
    const busy = () =>
      update('SET #tat = #tat + :interval', '#tat >= :now AND #tat <= :limit', {
        ':interval': interval,
        ':now': nowInMs,
        ':limit': admitLimitInMs(rate, nowInMs),
      });
    const idle = () =>
      update('SET #tat = :next', 'attribute_not_exists(#tat) OR #tat < :now', {
        ':next': nowInMs + interval,
        ':now': nowInMs,
      });
    // The likelier update first; one that lost to a concurrent request finds the bucket in the
    // other state, so the other is tried, and the first once more, before the request is refused.
    const hintKey = `${ownerKey}|${bucketId}`;
    const hint = this.lastTatInMs.get(hintKey);
    const [first, second] = hint !== undefined && hint >= nowInMs ? [busy, idle] : [idle, busy];
    const item = (await first()) ?? (await second()) ?? (await first());
    const costOf = (found: Item | undefined) =>
      options.period ? Number(found?.[costAttribute(options.period)] ?? 0) : 0;
    if (item) {
      const tatInMs = Number(item[tatAttribute(bucketId)]);
      this.remember(hintKey, tatInMs);
      return { admitted: true, tatInMs, periodCostUsd: costOf(item) - charge };
    }
    // Neither: the bucket is beyond its burst. Read it only now, to say when the next token comes.
    const found = await this.get(limitsKey(ownerKey));
    const tatInMs = Number(found?.[tatAttribute(bucketId)] ?? nowInMs);
    this.remember(hintKey, tatInMs);
    return { admitted: false, tatInMs, periodCostUsd: costOf(found) };
  }

  private remember(hintKey: string, tatInMs: number): void {
    this.lastTatInMs.delete(hintKey);
    if (this.lastTatInMs.size >= 10_000)
      this.lastTatInMs.delete(this.lastTatInMs.keys().next().value as string);
    this.lastTatInMs.set(hintKey, tatInMs);
  }

  async read(ownerKey: string, period: string): Promise<OwnerLimits> {
    return limitsOf(await this.get(limitsKey(ownerKey)), period);
  }

  async charge(ownerKey: string, period: string, usd: number): Promise<OwnerLimits> {
    const item = await this.updateWhere({
      Key: limitsKey(ownerKey),
      UpdateExpression: 'ADD #cost :usd',
      ExpressionAttributeNames: { '#cost': costAttribute(period) },
      ExpressionAttributeValues: { ':usd': usd },
    });
    const limits = limitsOf(item, period);
    return { ...limits, periodCostUsd: limits.periodCostUsd - usd };
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
