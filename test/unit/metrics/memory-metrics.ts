/** The run counters in memory, hour by hour as the DynamoDB store keeps them, for the use cases' tests. */
import { hourOf } from '../../../core/metrics/buckets';
import { binOf } from '../../../core/metrics/histogram';
import {
  type HourCounters,
  maxWorkflowsPerHour,
  type MetricsStore,
  type RunOutcome,
} from '../../../core/metrics/types';

export class MemoryMetrics implements MetricsStore {
  readonly hours = new Map<string, HourCounters>();
  readonly reads: Array<{ workspaceId: string; fromHour: string; toHour: string }> = [];

  async recordRun(run: RunOutcome): Promise<void> {
    const key = `${run.workspaceId}#${hourOf(run.endedAt)}`;
    const hour = this.hours.get(key) ?? {
      hour: hourOf(run.endedAt),
      runs: 0,
      errors: 0,
      totalDurationInMs: 0,
      costInUsd: 0,
      durations: {},
      workflows: {},
      otherWorkflows: { runs: 0, errors: 0 },
    };
    const errors = run.failed ? 1 : 0;
    hour.runs += 1;
    hour.errors += errors;
    hour.totalDurationInMs += run.durationInMs;
    hour.costInUsd += run.costInUsd;
    const bin = binOf(run.durationInMs);
    hour.durations[bin] = (hour.durations[bin] ?? 0) + 1;
    const counts =
      hour.workflows[run.workflowId] ??
      (Object.keys(hour.workflows).length < maxWorkflowsPerHour
        ? { runs: 0, errors: 0 }
        : hour.otherWorkflows);
    counts.runs += 1;
    counts.errors += errors;
    if (counts !== hour.otherWorkflows) hour.workflows[run.workflowId] = counts;
    this.hours.set(key, hour);
  }

  async readHours(workspaceId: string, fromHour: string, toHour: string): Promise<HourCounters[]> {
    this.reads.push({ workspaceId, fromHour, toHour });
    return [...this.hours.entries()]
      .filter(
        ([key, hour]) => key.startsWith(`${workspaceId}#`) && hour.hour >= fromHour && hour.hour < toHour,
      )
      .map(([, hour]) => hour)
      .sort((a, b) => a.hour.localeCompare(b.hour));
  }
}
