import { defineConfig } from 'vitest/config';
import { unreachableRateLimitsJson } from './test/support/limits.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', RATE_LIMITS_JSON: unreachableRateLimitsJson },
    // CDK synthesis and the embedded stack are CPU heavy; two cores on CI.
    maxWorkers: 2,
  },
});
