/**
 * Alert rules: a subscription with `alert` sends only when its rule fires for a workflow. Pure: the
 * state of one (subscription, workflow) goes in with a run (or a clock tick for `no_activity`), the
 * next state and whether the rule fired come out. The state is small and bounded (the last
 * `maxRememberedRuns` runs of the window), kept by the store between events.
 *
 * | rule | fires when | also |
 * |---|---|---|
 * | consecutive_failures | X failed runs in a row | a success resets the count |
 * | failure_rate | more than X % of the runs in the last Y hours failed | ≥ 5 runs, and Y hours watched |
 * | latency_threshold | a run took longer than X seconds | |
 * | latency_spike | a run took X % longer than the window's average | ≥ 5 earlier runs in the window |
 * | cost_threshold | a run cost more than X USD | |
 * | no_activity | no run for X hours | checked on a schedule |
 * | error_count | more than X failed runs in the last Y hours | counts all errors, not consecutive ones |
 *
 * After firing, a rule stays quiet for an hour (the cooldown) for that workflow.
 */
import type { AlertRule, AlertRuleName } from './types';

export const alertCooldownInMs = 60 * 60 * 1000;
export const minRunsForRateAndSpike = 5;
export const maxRememberedRuns = 500;

/** Thresholds and windows when a subscription leaves them out. */
export const alertDefaults: Record<AlertRuleName, { threshold: number; windowHours?: number }> = {
  consecutive_failures: { threshold: 3 },
  failure_rate: { threshold: 50, windowHours: 24 },
  latency_threshold: { threshold: 30 },
  latency_spike: { threshold: 100, windowHours: 24 },
  cost_threshold: { threshold: 1 },
  no_activity: { threshold: 24 },
  error_count: { threshold: 10, windowHours: 1 },
};

export interface RememberedRun {
  at: number;
  failed: boolean;
  durationMs: number;
}

export interface AlertState {
  consecutiveFailures: number;
  /** Runs within the rule's window, oldest first. */
  runs: RememberedRun[];
  /** When this workflow was first seen by the rule: a window counts only once it was watched whole. */
  watchedSince: number;
  lastRunAt?: number;
  lastFiredAt?: number;
}

export interface AlertFiring {
  rule: AlertRuleName;
  threshold: number;
  windowHours?: number;
  observed: number;
  message: string;
}

export interface ObservedRun {
  at: number;
  failed: boolean;
  durationMs: number;
  costUsd: number;
}

export function withDefaults(
  rule: AlertRule,
): Required<Pick<AlertRule, 'rule' | 'threshold'>> & { windowHours?: number } {
  const defaults = alertDefaults[rule.rule];
  const windowHours = rule.windowHours ?? defaults.windowHours;
  return {
    rule: rule.rule,
    threshold: rule.threshold ?? defaults.threshold,
    ...(windowHours ? { windowHours } : {}),
  };
}

function windowInMs(rule: { windowHours?: number }): number {
  return (rule.windowHours ?? 24) * 60 * 60 * 1000;
}

const coolingDown = (state: AlertState, now: number) =>
  state.lastFiredAt !== undefined && now - state.lastFiredAt < alertCooldownInMs;

/** The next state after a run, and the firing if the rule's condition holds and it is not cooling down. */
export function observeRun(
  previous: AlertState | undefined,
  alert: AlertRule,
  run: ObservedRun,
): { state: AlertState; fired?: AlertFiring } {
  const rule = withDefaults(alert);
  const earlier = previous ?? { consecutiveFailures: 0, runs: [], watchedSince: run.at };
  const since = run.at - windowInMs(rule);
  const inWindow = earlier.runs.filter((remembered) => remembered.at > since);
  const runs = [...inWindow, { at: run.at, failed: run.failed, durationMs: run.durationMs }].slice(
    -maxRememberedRuns,
  );
  const state: AlertState = {
    ...earlier,
    consecutiveFailures: run.failed ? earlier.consecutiveFailures + 1 : 0,
    runs,
    lastRunAt: run.at,
  };
  const firing = conditionOf(rule, state, inWindow, run);
  if (!firing || coolingDown(state, run.at)) return { state };
  return { state: { ...state, lastFiredAt: run.at }, fired: firing };
}

function conditionOf(
  rule: ReturnType<typeof withDefaults>,
  state: AlertState,
  before: RememberedRun[],
  run: ObservedRun,
): AlertFiring | undefined {
  const base = {
    rule: rule.rule,
    threshold: rule.threshold,
    ...(rule.windowHours ? { windowHours: rule.windowHours } : {}),
  };
  switch (rule.rule) {
    case 'consecutive_failures':
      return state.consecutiveFailures >= rule.threshold
        ? {
            ...base,
            observed: state.consecutiveFailures,
            message: `${state.consecutiveFailures} runs failed in a row`,
          }
        : undefined;
    case 'failure_rate': {
      const watchedWhole = run.at - state.watchedSince >= windowInMs(rule);
      if (!watchedWhole || state.runs.length < minRunsForRateAndSpike) return undefined;
      const rate = (state.runs.filter((remembered) => remembered.failed).length / state.runs.length) * 100;
      return rate > rule.threshold
        ? {
            ...base,
            observed: Math.round(rate * 10) / 10,
            message: `${rate.toFixed(1)} % of ${state.runs.length} runs in ${rule.windowHours} h failed`,
          }
        : undefined;
    }
    case 'latency_threshold': {
      const seconds = run.durationMs / 1000;
      return seconds > rule.threshold
        ? {
            ...base,
            observed: seconds,
            message: `A run took ${seconds.toFixed(1)} s, more than ${rule.threshold} s`,
          }
        : undefined;
    }
    case 'latency_spike': {
      if (before.length < minRunsForRateAndSpike) return undefined;
      const average = before.reduce((sum, remembered) => sum + remembered.durationMs, 0) / before.length;
      const slower = average > 0 ? ((run.durationMs - average) / average) * 100 : 0;
      return slower > rule.threshold
        ? {
            ...base,
            observed: Math.round(slower),
            message: `A run took ${Math.round(slower)} % longer than the average of ${Math.round(average)} ms`,
          }
        : undefined;
    }
    case 'cost_threshold':
      return run.costUsd > rule.threshold
        ? {
            ...base,
            observed: run.costUsd,
            message: `A run cost $${run.costUsd.toFixed(4)}, more than $${rule.threshold}`,
          }
        : undefined;
    case 'error_count': {
      const errors = state.runs.filter((remembered) => remembered.failed).length;
      return run.failed && errors > rule.threshold
        ? {
            ...base,
            observed: errors,
            message: `${errors} runs failed in the last ${rule.windowHours} h, more than ${rule.threshold}`,
          }
        : undefined;
    }
    case 'no_activity':
      return undefined;
  }
}

/** The `no_activity` check of a clock tick: no run for X hours since the last run (or since watching began). */
export function checkNoActivity(
  previous: AlertState | undefined,
  alert: AlertRule,
  now: number,
  watchingSince: number,
): { state: AlertState; fired?: AlertFiring } {
  const rule = withDefaults(alert);
  const state = previous ?? { consecutiveFailures: 0, runs: [], watchedSince: watchingSince };
  const quietSince = state.lastRunAt ?? state.watchedSince;
  const hours = (now - quietSince) / 3_600_000;
  if (hours < rule.threshold || coolingDown(state, now)) return { state };
  return {
    state: { ...state, lastFiredAt: now },
    fired: {
      rule: 'no_activity',
      threshold: rule.threshold,
      observed: Math.floor(hours),
      message: `No run for ${Math.floor(hours)} hours`,
    },
  };
}
