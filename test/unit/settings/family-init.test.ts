/**
 * A function's handler module reads its family's settings when it loads (a cold start): a wrong
 * value fails the init, naming the variable, before any request or message reaches it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe("a handler module's init", () => {
  it.each([
    [
      'a route',
      '../../../functions/jobs/get',
      'SYNC_BUDGET_MS',
      'abc',
      /SYNC_BUDGET_MS must be a number of milliseconds greater than 0, not "abc"/,
    ],
    [
      'a worker',
      '../../../functions/jobs/dead-letter',
      'LOG_RETENTION_DAYS',
      '2.5',
      /LOG_RETENTION_DAYS must be a whole number of days, 1 or more/,
    ],
    [
      'a state machine task',
      '../../../functions/execution/step',
      'STEP_BUDGET_MS',
      '3 minutes',
      /STEP_BUDGET_MS must be a number of milliseconds greater than 0/,
    ],
  ])(
    'of %s fails on a wrong setting of its family, naming it',
    async (_family, module, name, value, message) => {
      // Prepare
      vi.resetModules();
      vi.stubEnv(name, value);

      // Act
      const loading = import(module);

      // Assess
      await expect(loading).rejects.toThrow(message);
    },
  );

  it('of a route loads with the same settings set right', async () => {
    // Prepare
    vi.resetModules();
    vi.stubEnv('SYNC_BUDGET_MS', '3000');

    // Act
    const loaded = (await import('../../../functions/jobs/get')) as { handler: unknown };

    // Assess
    expect(typeof loaded.handler).toBe('function');
  });
});
