/**
 * LimitsStore. The buckets and usage of a user or an organization are attributes of its own item
 * in the `entities` table, so that one conditional update both takes a token and reads the user
 * (authentication needs the user anyway: no extra read). Source addresses and run marks are in the
 * `limits` table.
 *
 * | owner                  | table      | pk                      | sk        |
 * |------------------------|------------|-------------------------|-----------|
 * | `user#<id>`            | `entities` | `USER#<id>`             | `USER`    |
 * | `org#<id>`             | `entities` | `ORG#<id>`              | `ORG`     |
 * | `source#<address>`     | `limits`   | `LIMITS#source#<addr>`  | `LIMITS`  |
 * | run cost mark          | `limits`   | `RUNCOST#<executionId>` | `RUNCOST` |
 *
 * Owner attributes: `tat_<bucketId>` (each bucket), `cost_<YYYY-MM>` (each month), `pendingRuns`
 * (SS). Updates of user and organization items hold only while the item exists: nothing here
 * creates a user or an organization.
 *
 * A token is taken with one conditional update on the bucket's `tat` (core/limits/token-bucket.ts):
 * a busy bucket moves it on by one interval if it is within the burst; an idle one (or a new one)
 * is set to now plus one interval. Several tokens at once (a lease, core/limits/token-leases.ts) move
 * it by as many intervals, on the condition that the last of them is within the burst. The likelier
 * of the two is tried first (from the last `tat` this process saw); only when that guess is wrong
 * does another update run (at most three in all), so concurrent requests never admit more than the
 * burst and nothing is read-modified-written. The update answers the whole item, so the period's
 * cost (and the user) come with the token.
 *
 * The part of a run's cost not counted at admission is added once without a transaction (dynalite
 * has none): the add also puts the execution id in `pendingRuns` on the condition that it is not
 * there yet, then the run's mark is put, then the id leaves the set. A repeated call finds the
 * mark and adds nothing; one that comes after a crash between the add and the mark finds the id
 * still pending.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { BoundedMap } from '../../core/bounded-map';
import type { User } from '../../core/identity/types';
import type { LimitsStore, OwnerLimits, TakeOptions, TakeOutcome } from '../../core/limits/types';
import { admitLimitInMs, type BucketRate, intervalInMs } from '../../core/limits/token-bucket';
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import {
  DynamoTable,
  type DynamoTableOptions,
  ENTITIES_TABLE_ENV,
  type Item,
  LIMITS_TABLE_ENV,
  withoutLimits,
} from './dynamo-table';

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

/**
 * The `tat` each bucket had after this process last took from it: a hint only (conditions decide),
 * so that the first update tried is the one that holds, and a take is one write, not two. Kept for
 * the process, not the store: wiring makes a store per request.
 */
const lastTatInMs = new BoundedMap<string, number>();

/** A bucket's `tat` only grows, so a hint only grows too: a late answer does not take back a later one. */
function hintTat(hintKey: string, tatInMs: number): void {
  lastTatInMs.set(hintKey, Math.max(lastTatInMs.get(hintKey) ?? tatInMs, tatInMs));
}

interface OwnerItem {
  tableName: string;
  key: { pk: string; sk: string };
  /** A user's or organization's item: updated only while it exists. */
  entity: boolean;
}

export class DynamoLimitsStore extends DynamoTable implements LimitsStore {
  private readonly entitiesTableName: () => string;

  /**
   * `tableName` is the `limits` table; users and organizations are in `entitiesTableName` (asked
   * for only when a user or organization is, so functions that only count failed authentications
   * need no access to it).
   */
  constructor(options: DynamoTableOptions & { entitiesTableName: string | (() => string) }) {
    super(options);
    const entities = options.entitiesTableName;
    this.entitiesTableName = typeof entities === 'string' ? () => entities : entities;
  }

  static fromEnv(): DynamoLimitsStore {
    return new DynamoLimitsStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(LIMITS_TABLE_ENV),
      entitiesTableName: () => requireEnv(ENTITIES_TABLE_ENV),
    });
  }

  private ownerItem(ownerKey: string): OwnerItem {
    const [kind, id] = [ownerKey.slice(0, ownerKey.indexOf('#')), ownerKey.slice(ownerKey.indexOf('#') + 1)];
    if (kind === 'user')
      return { tableName: this.entitiesTableName(), key: { pk: `USER#${id}`, sk: 'USER' }, entity: true };
    if (kind === 'org')
      return { tableName: this.entitiesTableName(), key: { pk: `ORG#${id}`, sk: 'ORG' }, entity: true };
    return { tableName: this.tableName, key: { pk: `LIMITS#${ownerKey}`, sk: 'LIMITS' }, entity: false };
  }

  async take(
    ownerKey: string,
    bucketId: string,
    rate: BucketRate,
    nowInMs: number,
    options: TakeOptions = {},
  ): Promise<TakeOutcome> {
    const count = options.count ?? 1;
    if (!(count >= 1 && count <= rate.maxBurst)) throw new RangeError(`Cannot take ${count} tokens`);
    const interval = intervalInMs(rate);
    const charge = options.chargeUsd && options.period ? options.chargeUsd : 0;
    const owner = this.ownerItem(ownerKey);
    const guard = options.guard;
    // Conditions are kept to single clauses without parentheses: the local emulator parses each
    // expression once per process (local/emulators/dynalite-caches.ts), but a compound one's first parse
    // costs about as much CPU again as the update. A guard's plan equality also proves the item exists.
    const conditionOf = (condition: string) =>
      [
        guard
          ? '#plan = :plan AND attribute_not_exists(organizationId)'
          : owner.entity
            ? 'attribute_exists(pk)'
            : '',
        condition,
      ]
        .filter(Boolean)
        .join(' AND ');
    const update = (expression: string, condition: string, values: Record<string, number>) =>
      this.updateWhere({
        TableName: owner.tableName,
        Key: owner.key,
        UpdateExpression: charge ? `${expression} ADD #cost :charge` : expression,
        ConditionExpression: conditionOf(condition),
        ExpressionAttributeNames: {
          '#tat': tatAttribute(bucketId),
          ...(charge ? { '#cost': costAttribute(options.period as string) } : {}),
          ...(guard ? { '#plan': 'plan' } : {}),
        },
        ExpressionAttributeValues: {
          ...values,
          ...(charge ? { ':charge': charge } : {}),
          ...(guard ? { ':plan': guard.plan } : {}),
        },
      });
    const busy = () =>
      update('SET #tat = #tat + :interval', '#tat BETWEEN :now AND :limit', {
        ':interval': count * interval,
        ':now': nowInMs,
        ':limit': admitLimitInMs(rate, nowInMs, count),
      });
    const idle = () =>
      // A comparison with a missing attribute is false, so this also holds for a new bucket.
      update('SET #tat = :next', 'NOT #tat >= :now', {
        ':next': nowInMs + count * interval,
        ':now': nowInMs,
      });
    // The likelier update first; one that lost to a concurrent request finds the bucket in the
    // other state, so the other is tried, and the first once more, before the request is refused.
    const hintKey = `${ownerKey}|${bucketId}`;
    const hint = lastTatInMs.get(hintKey);
    const [first, second] = hint !== undefined && hint >= nowInMs ? [busy, idle] : [idle, busy];
    // Whatever this take finds, the bucket is busy for an interval after it: a take that starts
    // meanwhile (16 requests of one key at once) tries the busy update first, instead of losing
    // the idle one to this take and paying a failed conditional write.
    hintTat(hintKey, nowInMs + count * interval);
    const item = (await first()) ?? (await second()) ?? (await first());
    const costOf = (found: Item | undefined) =>
      options.period ? Number(found?.[costAttribute(options.period)] ?? 0) : 0;
    const userOf = (found: Item | undefined) =>
      found && ownerKey.startsWith('user#') ? { user: withoutLimits<User>(found) } : {};
    if (item) {
      const tatInMs = Number(item[tatAttribute(bucketId)]);
      hintTat(hintKey, tatInMs);
      return { admitted: true, tatInMs, periodCostUsd: costOf(item) - charge, ...userOf(item) };
    }
    // Neither: the bucket is beyond its burst (or the guard failed). Read it only now, to say
    // when the next token comes (and, for a user, who it is now).
    const found = await this.get(owner.key, owner.tableName);
    const tatInMs = Number(found?.[tatAttribute(bucketId)] ?? nowInMs);
    hintTat(hintKey, tatInMs);
    return { admitted: false, tatInMs, periodCostUsd: costOf(found), ...userOf(found) };
  }

  async read(ownerKey: string, period: string): Promise<OwnerLimits> {
    const owner = this.ownerItem(ownerKey);
    return limitsOf(await this.get(owner.key, owner.tableName), period);
  }

  async charge(ownerKey: string, period: string, usd: number): Promise<OwnerLimits> {
    const owner = this.ownerItem(ownerKey);
    const item = await this.updateWhere({
      TableName: owner.tableName,
      Key: owner.key,
      UpdateExpression: 'ADD #cost :usd',
      ...(owner.entity ? { ConditionExpression: 'attribute_exists(pk)' } : {}),
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
    const owner = this.ownerItem(ownerKey);
    await this.updateWhere({
      TableName: owner.tableName,
      Key: owner.key,
      UpdateExpression: 'DELETE pendingRuns :run',
      ...(owner.entity ? { ConditionExpression: 'attribute_exists(pk)' } : {}),
      ExpressionAttributeValues: { ':run': new Set([executionId]) },
    });
  }

  /** Adds the cost unless the execution id is pending already (an earlier call stopped half-way). */
  private async addPending(ownerKey: string, period: string, executionId: string, costInUsd: number) {
    const owner = this.ownerItem(ownerKey);
    await this.updateWhere({
      TableName: owner.tableName,
      Key: owner.key,
      UpdateExpression: 'ADD #cost :cost, pendingRuns :run',
      ConditionExpression: `${owner.entity ? 'attribute_exists(pk) AND ' : ''}(attribute_not_exists(pendingRuns) OR NOT contains(pendingRuns, :id))`,
      ExpressionAttributeNames: { '#cost': costAttribute(period) },
      ExpressionAttributeValues: { ':cost': costInUsd, ':run': new Set([executionId]), ':id': executionId },
    });
  }
}
