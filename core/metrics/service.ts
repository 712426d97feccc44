/**
 * The metrics route's use case: a workspace's runs, errors, p50/p95 duration and cost per hour or per
 * day, and the workflows that fail most, summed from the hour counters (core/metrics/types.ts).
 */
import { ValidationError } from '../errors';
import { requireWorkspaceAccess } from '../identity/access';
import type { Principal } from '../identity/service';
import type { IdentityStore } from '../identity/types';
import { roundedUsd } from '../money';
import { bucketLengthInMs, bucketStartInMs, bucketStarts, type MetricsBucket } from './buckets';
import { addHistograms, estimatePercentileInMs } from './histogram';
import type { HourCounters, MetricsStore, WorkflowCounts } from './types';

export interface MetricsDeps {
  identity: Pick<IdentityStore, 'getWorkspaceMembership' | 'getWorkspace' | 'getOrganizationMembership'>;
  metrics: Pick<MetricsStore, 'readHours'>;
  now: () => Date;
}

export interface MetricsQuery {
  workspaceId: string;
  /** ISO times (UTC); absent: `to` is now and `from` is `defaultSpanInMs` before it. */
  from?: string;
  to?: string;
  bucket: MetricsBucket;
}

/** Buckets one answer may hold: a week of hours, a month of days (each day reads 24 hour records). */
export const maxBuckets: Record<MetricsBucket, number> = { hour: 168, day: 31 };

/** What the dashboard shows without a range: the last 24 hours by hour, the last 30 days by day. */
export const defaultSpanInMs: Record<MetricsBucket, number> = { hour: 24 * 3_600_000, day: 30 * 86_400_000 };

/** Workflows `topFailingWorkflows` lists. */
export const topFailingCount = 10;

export interface MetricsPoint {
  /** ISO start of the bucket. */
  start: string;
  runs: number;
  errors: number;
  /** Estimated from the duration histogram (within about 9 %); null without runs. */
  p50Ms: number | null;
  p95Ms: number | null;
  /** Mean duration (exact); null without runs. */
  meanMs: number | null;
  costUsd: number;
}

export interface MetricsAnswer {
  data: MetricsPoint[];
  bucket: MetricsBucket;
  from: string;
  to: string;
  topFailingWorkflows: Array<{ workflowId: string } & WorkflowCounts>;
}

export async function readMetrics(
  deps: MetricsDeps,
  principal: Principal,
  query: MetricsQuery,
): Promise<MetricsAnswer> {
  const range = rangeOf(query, deps.now());
  await requireWorkspaceAccess(deps.identity, principal.user.id, query.workspaceId, 'read');
  const starts = bucketStarts(range.fromInMs, range.toInMs, query.bucket);
  const length = bucketLengthInMs(query.bucket);
  const hours = await deps.metrics.readHours(
    query.workspaceId,
    new Date(starts[0] ?? range.fromInMs).toISOString(),
    new Date((starts[starts.length - 1] ?? range.fromInMs) + length).toISOString(),
  );
  const byBucket = new Map<number, HourCounters[]>(starts.map((start) => [start, []]));
  for (const hour of hours) byBucket.get(bucketStartInMs(Date.parse(hour.hour), query.bucket))?.push(hour);
  return {
    data: starts.map((start) => pointOf(start, byBucket.get(start) ?? [])),
    bucket: query.bucket,
    from: new Date(range.fromInMs).toISOString(),
    to: new Date(range.toInMs).toISOString(),
    topFailingWorkflows: topFailing(hours),
  };
}

function rangeOf(query: MetricsQuery, now: Date): { fromInMs: number; toInMs: number } {
  const toInMs = query.to === undefined ? now.getTime() : Date.parse(query.to);
  const fromInMs = query.from === undefined ? toInMs - defaultSpanInMs[query.bucket] : Date.parse(query.from);
  if (!(fromInMs < toInMs)) {
    throw new ValidationError('`to` must be later than `from`', [
      { path: 'to', message: 'Must be later than from' },
    ]);
  }
  const count = bucketStarts(fromInMs, toInMs, query.bucket).length;
  const max = maxBuckets[query.bucket];
  if (count > max) {
    const message = `From \`from\` to \`to\` is ${count} ${query.bucket}s; bucket ${query.bucket} takes at most ${max}`;
    throw new ValidationError(message, [{ path: 'from', message }]);
  }
  return { fromInMs, toInMs };
}

function pointOf(startInMs: number, hours: readonly HourCounters[]): MetricsPoint {
  const runs = sum(hours, (hour) => hour.runs);
  const durations = addHistograms(hours.map((hour) => hour.durations));
  return {
    start: new Date(startInMs).toISOString(),
    runs,
    errors: sum(hours, (hour) => hour.errors),
    p50Ms: estimatePercentileInMs(durations, 0.5),
    p95Ms: estimatePercentileInMs(durations, 0.95),
    meanMs: runs === 0 ? null : Math.round(sum(hours, (hour) => hour.totalDurationInMs) / runs),
    costUsd: roundedUsd(sum(hours, (hour) => hour.costInUsd)),
  };
}

/** The workflows with the most errors over the range (then the most runs), those with errors only. */
function topFailing(hours: readonly HourCounters[]): MetricsAnswer['topFailingWorkflows'] {
  const totals = new Map<string, WorkflowCounts>();
  for (const hour of hours)
    for (const [workflowId, counts] of Object.entries(hour.workflows)) {
      const total = totals.get(workflowId) ?? { runs: 0, errors: 0 };
      total.runs += counts.runs;
      total.errors += counts.errors;
      totals.set(workflowId, total);
    }
  return [...totals]
    .filter(([, counts]) => counts.errors > 0)
    .sort(([idA, a], [idB, b]) => b.errors - a.errors || b.runs - a.runs || idA.localeCompare(idB))
    .slice(0, topFailingCount)
    .map(([workflowId, counts]) => ({ workflowId, ...counts }));
}

function sum<T>(items: readonly T[], amountOf: (item: T) => number): number {
  return items.reduce((total, item) => total + amountOf(item), 0);
}
