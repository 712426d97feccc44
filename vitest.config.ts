import { configDefaults, defineConfig } from 'vitest/config';
import type { ServiceMode } from './test/support/compiled-service.ts';
import { unreachableRateLimitsJson } from './support/limits.ts';

const e2e = 'test/e2e/**/*.test.ts';

/**
 * The end-to-end suite (test/e2e) runs once per way `npm start` can serve: each mode's project
 * starts its one service in a global setup, which runs only when a file of that project is in
 * the run.
 */
const e2eProject = (mode: ServiceMode) => ({
  extends: true as const,
  test: {
    name: `e2e-${mode}`,
    include: [e2e],
    globalSetup: ['test/e2e/global-setup.ts'],
    // Every request crosses a process boundary and a loaded machine; the runs themselves are short.
    testTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', RATE_LIMITS_JSON: unreachableRateLimitsJson },
    // CDK synthesis and the embedded stack are CPU heavy; two cores on CI.
    maxWorkers: 2,
    // The e2e global setups stop their services one after the other, each allowed 10 s to stop
    // gracefully before it is killed; vitest ends the process when this runs out.
    teardownTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'service', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, e2e] },
      },
      e2eProject('compiled'),
      e2eProject('bundles'),
    ],
  },
});
