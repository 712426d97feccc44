/**
 * Rate limits too high to reach, for tests and benchmarks that are not about limits: their
 * requests still draw tokens (the limiter runs as it does for users), but a test that polls a job
 * every 20 ms is not refused for it, nor a benchmark's 500 jobs for the cap on runs in progress.
 * Tests of the limits themselves set their own values.
 */
const unreachable = { requestsPerMinute: 1_000_000, maxBurst: 1_000_000 };
const plan = { api: unreachable, sync: unreachable, async: unreachable, runsInProgress: 5_000 };

export const unreachableRateLimitsJson = JSON.stringify({
  free: plan,
  pro: plan,
  team: plan,
  enterprise: plan,
  authFailures: unreachable,
  formFailures: unreachable,
  formSources: unreachable,
});
