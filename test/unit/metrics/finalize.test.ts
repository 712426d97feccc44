import { describe, expect, it } from 'vitest';
import type { ExecutionLogEntry } from '../../../core/runs/log';
import { finalizeRun } from '../../../core/runs/service';
import { MemoryCheckpoints, runState } from '../../support/runs';
import { MemoryMetrics } from './memory-metrics';

/** A log that, like the DynamoDB one, writes an execution's entry once and says whether it did. */
function onceLog() {
  const entries = new Map<string, ExecutionLogEntry>();
  return {
    entries,
    putLogEntry: async (entry: ExecutionLogEntry) => {
      if (entries.has(entry.id)) return false;
      entries.set(entry.id, entry);
      return true;
    },
  };
}

function finalizeDeps(metrics: MemoryMetrics) {
  return {
    logs: onceLog(),
    metrics,
    checkpoints: new MemoryCheckpoints(),
    jobs: {} as never,
    usage: { addRunCost: async () => undefined },
    now: () => new Date('2026-01-01T00:00:02.500Z'),
    baseChargePerRunInUsd: 0.002,
  };
}

describe('finalizeRun and the run counters', () => {
  it('counts a failed run once in the hour it ended, though Finalize runs twice', async () => {
    // Prepare: a run whose step timed out, finalized through the state machine's Catch
    const metrics = new MemoryMetrics();
    const deps = finalizeDeps(metrics);
    const state = runState({ failure: { Error: 'States.Timeout', Cause: '' } });

    // Act
    await finalizeRun(deps, state);
    await finalizeRun(deps, state);

    // Assess
    const hours = await metrics.readHours('ws_1', '2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z');
    expect(hours).toHaveLength(1);
    expect(hours[0]).toMatchObject({
      hour: '2026-01-01T00:00:00.000Z',
      runs: 1,
      errors: 1,
      totalDurationInMs: 2_500,
      costInUsd: 0.002,
      workflows: { wf_1: { runs: 1, errors: 1 } },
    });
  });
});
