/**
 * One workspace's runaway functions against the real pool: they hold their share of the workers
 * and wait behind each other, while another workspace's function starts at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandboxPool, type SandboxPool } from '../../../adapters/sandbox/pool';
import type { SandboxError } from '../../../adapters/sandbox/sandbox-error';

const megabyte = 1024 * 1024;
let pool: SandboxPool | undefined;
/** Cancels the test's runaway runs. */
let stop: AbortController;

beforeEach(() => {
  stop = new AbortController();
});

afterEach(async () => {
  stop.abort();
  await pool?.close();
  pool = undefined;
});

describe('sandbox pool fairness', () => {
  it("starts another workspace's function at once while one workspace's ten loops run for a minute", async () => {
    // Prepare
    pool = createSandboxPool({ size: 2 });
    const runaway = Array.from({ length: 10 }, () =>
      pool!
        .run({
          code: 'while (true) {}',
          timeoutInMs: 60_000,
          memoryLimitInBytes: 64 * megabyte,
          workspaceId: 'ws-greedy',
          signal: stop.signal,
        })
        .catch((error: SandboxError) => error),
    );
    const greedyAlone = pool.stats();

    // Act
    const other = pool.run({
      code: 'return "on time"',
      // A busy machine may take a while to start the worker; the run was given it at once.
      timeoutInMs: 30_000,
      memoryLimitInBytes: 64 * megabyte,
      workspaceId: 'ws-other',
    });
    const withOther = pool.stats();

    // Assess
    expect(greedyAlone).toMatchObject({ workers: 2, busy: 1, queued: 9 });
    expect(withOther).toMatchObject({ busy: 2, queued: 9 });
    expect((await other).result).toBe('on time');
    stop.abort();
    const ended = await Promise.all(runaway);
    expect(ended.every((outcome) => (outcome as SandboxError).kind === 'cancelled')).toBe(true);
  });

  it("refuses a workspace's run past its own queue limit, and still takes another workspace's", async () => {
    // Prepare
    pool = createSandboxPool({ size: 1, maxQueuedRunsPerWorkspace: 2 });
    const request = (workspaceId: string) => ({
      code: 'while (true) {}',
      timeoutInMs: 60_000,
      memoryLimitInBytes: 64 * megabyte,
      workspaceId,
      signal: stop.signal,
    });
    const held = [1, 2, 3].map(() => pool!.run(request('ws-greedy')).catch((error: SandboxError) => error));

    // Act
    const refused = await pool.run(request('ws-greedy')).catch((error: SandboxError) => error);
    const taken = pool.run(request('ws-other')).catch((error: SandboxError) => error);

    // Assess
    expect((refused as SandboxError).message).toContain('of this workspace are waiting already');
    expect(pool.stats().queued).toBe(3);
    stop.abort();
    await Promise.all([...held, taken]);
  });
});
