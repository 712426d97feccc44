import { describe, expect, it } from 'vitest';
import {
  type AlertState,
  alertCooldownInMs,
  checkNoActivity,
  type ObservedRun,
  observeRun,
} from '../../../core/notifications/alerts';
import type { AlertRule } from '../../../core/notifications/types';

const hour = 3_600_000;
const start = Date.parse('2026-01-01T00:00:00.000Z');

function run(at: number, fields: Partial<ObservedRun> = {}): ObservedRun {
  return { at, failed: false, durationMs: 1_000, costUsd: 0.001, ...fields };
}

/** Feeds the runs in order; answers the index of each run that fired. */
function firings(rule: AlertRule, runs: ObservedRun[], initial?: AlertState): number[] {
  let state = initial;
  const fired: number[] = [];
  runs.forEach((observed, index) => {
    const next = observeRun(state, rule, observed);
    state = next.state;
    if (next.fired) fired.push(index);
  });
  return fired;
}

describe('alert rules', () => {
  it('consecutive_failures fires at the Xth failure in a row, and a success resets the count', () => {
    // Prepare
    const rule: AlertRule = { rule: 'consecutive_failures', threshold: 3 };
    const f = (i: number) => run(start + i * 1000, { failed: true });
    const ok = (i: number) => run(start + i * 1000);

    // Act
    const fired = firings(rule, [f(0), f(1), ok(2), f(3), f(4), f(5)]);

    // Assess
    expect(fired).toEqual([5]);
  });

  it('failure_rate fires above X % only with 5 runs and once the whole window was watched', () => {
    // Prepare: 4 failures of 5 in the first hour of a 2-hour window, then more after it
    const rule: AlertRule = { rule: 'failure_rate', threshold: 50, windowHours: 2 };
    const early = [0, 1, 2, 3, 4].map((i) => run(start + i * 60_000, { failed: i > 0 }));
    const late = [run(start + 2 * hour + 1, { failed: true })];

    // Act
    const fired = firings(rule, [...early, ...late]);
    const atFifty = firings(
      rule,
      [0, 1, 2, 3]
        .map((i) => run(start + i * 60_000, { failed: i % 2 === 0 }))
        .concat([run(start + 2 * hour, { failed: false }), run(start + 2 * hour + 1, { failed: true })]),
    );

    // Assess
    expect(fired).toEqual([5]);
    expect(atFifty).toEqual([]);
  });

  it('latency_threshold fires for a run longer than X seconds and not at X', () => {
    // Act
    const fired = firings({ rule: 'latency_threshold', threshold: 30 }, [
      run(start, { durationMs: 30_000 }),
      run(start + 1, { durationMs: 30_001 }),
    ]);

    // Assess
    expect(fired).toEqual([1]);
  });

  it('latency_spike needs 5 earlier runs and fires above X % over their average', () => {
    // Prepare: four runs of 1 s, a fifth, then runs of 2 s (100 %) and 2.1 s (110 %)
    const rule: AlertRule = { rule: 'latency_spike', threshold: 100, windowHours: 24 };
    const base = [0, 1, 2, 3].map((i) => run(start + i * 1000));

    // Act
    const tooFew = firings(rule, [...base, run(start + 5_000, { durationMs: 5_000 })]);
    const fired = firings(rule, [
      ...base,
      run(start + 4_000),
      run(start + 5_000, { durationMs: 2_000 }),
      run(start + 6_000 + alertCooldownInMs, { durationMs: 2_400 }),
    ]);

    // Assess
    expect(tooFew).toEqual([]);
    expect(fired).toEqual([6]);
  });

  it('cost_threshold fires for a run costing more than X USD', () => {
    expect(
      firings({ rule: 'cost_threshold', threshold: 1 }, [
        run(start, { costUsd: 1 }),
        run(start + 1, { costUsd: 1.01 }),
      ]),
    ).toEqual([1]);
  });

  it('error_count fires when the errors within the window are above X, not at X, not counting older ones', () => {
    // Prepare
    const rule: AlertRule = { rule: 'error_count', threshold: 3, windowHours: 1 };

    // Act
    const fired = firings(rule, [
      run(start, { failed: true }),
      run(start + 2 * hour, { failed: true }),
      run(start + 2 * hour + 1, { failed: false }),
      run(start + 2 * hour + 2, { failed: true }),
      run(start + 2 * hour + 3, { failed: true }),
      run(start + 2 * hour + 4, { failed: true }),
    ]);

    // Assess
    expect(fired).toEqual([5]);
  });

  it('stays quiet for an hour after firing, then fires again', () => {
    // Prepare
    const rule: AlertRule = { rule: 'cost_threshold', threshold: 1 };
    const dear = (at: number) => run(at, { costUsd: 2 });

    // Act
    const fired = firings(rule, [
      dear(start),
      dear(start + alertCooldownInMs - 1),
      dear(start + alertCooldownInMs),
    ]);

    // Assess
    expect(fired).toEqual([0, 2]);
  });

  it('uses the default threshold when none is given', () => {
    expect(
      firings(
        { rule: 'consecutive_failures' },
        [0, 1, 2].map((i) => run(start + i, { failed: true })),
      ),
    ).toEqual([2]);
  });

  it('no_activity fires X hours after the last run, once per cooldown', () => {
    // Prepare
    const rule: AlertRule = { rule: 'no_activity', threshold: 24 };
    const { state } = observeRun(undefined, rule, run(start));

    // Act
    const early = checkNoActivity(state, rule, start + 24 * hour - 1, start);
    const due = checkNoActivity(state, rule, start + 24 * hour, start);
    const again = checkNoActivity(due.state, rule, start + 24 * hour + 60_000, start);
    const never = checkNoActivity(undefined, rule, start + 25 * hour, start);

    // Assess
    expect(early.fired).toBeUndefined();
    expect(due.fired).toMatchObject({ rule: 'no_activity', threshold: 24, observed: 24 });
    expect(again.fired).toBeUndefined();
    expect(never.fired).toMatchObject({ observed: 25 });
  });
});
