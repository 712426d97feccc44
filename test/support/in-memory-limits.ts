/**
 * The limits ports in memory, for unit tests of the limit and admission use cases: the owners'
 * buckets and usage (LimitsStore), and the workspaces' runs in progress (RunSlotStore).
 */
import type { RunSlotStore } from '../../core/limits/run-slots';
import { type BucketRate, take as takeFromBucket } from '../../core/limits/token-bucket';
import type { LimitsStore, OwnerLimits, TakeOptions, TakeOutcome } from '../../core/limits/types';

/** The LimitsStore port in memory: one `tat` per owner and bucket, one cost per owner and period. */
export class InMemoryLimitsStore implements LimitsStore {
  private readonly tats = new Map<string, Record<string, number>>();
  private readonly costs = new Map<string, number>();
  private readonly runsAdded = new Set<string>();
  /** Takes and charges asked of the store: its writes. */
  writes = 0;

  async take(
    ownerKey: string,
    bucketId: string,
    rate: BucketRate,
    nowInMs: number,
    { period, chargeUsd = 0, count = 1 }: TakeOptions = {},
  ): Promise<TakeOutcome> {
    this.writes++;
    const buckets = this.bucketsOf(ownerKey);
    const periodCostUsd = period ? this.costOf(ownerKey, period) : 0;
    const outcome = takeFromBucket(rate, buckets[bucketId], nowInMs, count);
    if (!outcome.admitted) return { admitted: false, tatInMs: buckets[bucketId] ?? nowInMs, periodCostUsd };
    buckets[bucketId] = outcome.tatInMs;
    if (period && chargeUsd) this.costs.set(`${ownerKey}|${period}`, periodCostUsd + chargeUsd);
    return { admitted: true, tatInMs: outcome.tatInMs, periodCostUsd };
  }

  async read(ownerKey: string, period: string): Promise<OwnerLimits> {
    return { tatInMs: { ...this.bucketsOf(ownerKey) }, periodCostUsd: this.costOf(ownerKey, period) };
  }

  async charge(ownerKey: string, period: string, usd: number): Promise<OwnerLimits> {
    this.writes++;
    const before = await this.read(ownerKey, period);
    this.costs.set(`${ownerKey}|${period}`, before.periodCostUsd + usd);
    return before;
  }

  async addRunCost(ownerKey: string, period: string, executionId: string, costInUsd: number): Promise<void> {
    if (this.runsAdded.has(executionId)) return;
    this.runsAdded.add(executionId);
    this.costs.set(`${ownerKey}|${period}`, this.costOf(ownerKey, period) + costInUsd);
  }

  private bucketsOf(ownerKey: string): Record<string, number> {
    let buckets = this.tats.get(ownerKey);
    if (!buckets) {
      buckets = {};
      this.tats.set(ownerKey, buckets);
    }
    return buckets;
  }

  private costOf(ownerKey: string, period: string): number {
    return this.costs.get(`${ownerKey}|${period}`) ?? 0;
  }
}

/** The RunSlotStore port in memory: each workspace's slots as execution id → expiry. */
export class InMemoryRunSlotStore implements RunSlotStore {
  readonly slots = new Map<string, Map<string, number>>();

  async add(workspaceId: string, executionId: string, expiresAtInMs: number, cap: number): Promise<boolean> {
    const runs = this.slotsOf(workspaceId);
    if (runs.size >= cap && !runs.has(executionId)) return false;
    runs.set(executionId, expiresAtInMs);
    return true;
  }

  async prune(workspaceId: string, nowInMs: number): Promise<number> {
    const runs = this.slotsOf(workspaceId);
    const expired = [...runs].filter(([, expiresAtInMs]) => expiresAtInMs <= nowInMs);
    for (const [executionId] of expired) runs.delete(executionId);
    return expired.length;
  }

  async remove(workspaceId: string, executionId: string): Promise<void> {
    this.slotsOf(workspaceId).delete(executionId);
  }

  /** The execution ids holding a slot of the workspace. */
  held(workspaceId: string): string[] {
    return [...this.slotsOf(workspaceId).keys()];
  }

  private slotsOf(workspaceId: string): Map<string, number> {
    let runs = this.slots.get(workspaceId);
    if (!runs) {
      runs = new Map();
      this.slots.set(workspaceId, runs);
    }
    return runs;
  }
}
