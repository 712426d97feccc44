/**
 * One run cannot take the service down: function blocks run on worker threads, so the server keeps
 * answering while user code loops or eats memory, and what a run produces is capped.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployedWorkflow, type Tenant, threeBlockGraph, useLocalService } from '../../support/service';

// The ceiling of a function's time limit, lowered so that the tests below take seconds, not minutes.
process.env.FUNCTION_MAX_TIMEOUT_MS = '2000';

const service = useLocalService();
const megabyte = 1024 * 1024;

function deployed(tenant: Tenant, code: string, timeoutMs?: number): Promise<string> {
  const state = threeBlockGraph({ code, inputFormat: [], data: '<shout.result>' });
  if (timeoutMs !== undefined) state.blocks.shout.config.timeoutMs = timeoutMs;
  return deployedWorkflow(tenant, state);
}

/** Calls /api/health back to back until `done` settles; resolves to the slowest answer's time. */
async function slowestHealthWhile(done: Promise<unknown>): Promise<{ slowestInMs: number; answers: number }> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  let slowestInMs = 0;
  let answers = 0;
  while (!finished) {
    const startedAt = performance.now();
    const response = await fetch(`${service.get().url}/api/health`);
    expect(response.status).toBe(200);
    await response.text();
    slowestInMs = Math.max(slowestInMs, performance.now() - startedAt);
    answers += 1;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { slowestInMs, answers };
}

async function largestFileIn(directory: string): Promise<number> {
  let largest = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    largest = Math.max(largest, (await stat(join(entry.parentPath, entry.name))).size);
  }
  return largest;
}

describe('sandbox isolation', () => {
  it('stops an endless loop at the time limit ceiling while the server keeps answering', async () => {
    const tenant = await service.get().newTenant('looper');
    const id = await deployed(tenant, 'while (true) {}');

    const run = tenant.call('POST', `/api/workflows/${id}/execute`, {});
    const health = await slowestHealthWhile(run);
    const answer = await run;

    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({
      success: false,
      code: 'EXECUTION_ERROR',
      error: 'Shout: Function timed out after 2000 ms',
    });
    expect(health.answers).toBeGreaterThan(5);
    expect(health.slowestInMs).toBeLessThan(1000);
  });

  it('cuts a huge timeoutMs to the ceiling, three loops at once, and health still answers', async () => {
    const tenant = await service.get().newTenant('looper');
    const id = await deployed(tenant, 'while (true) {}', 1_000_000_000);

    const runs = Promise.all([1, 2, 3].map(() => tenant.call('POST', `/api/workflows/${id}/execute`, {})));
    const health = await slowestHealthWhile(runs);
    const answers = await runs;

    for (const answer of answers) {
      expect(answer.status).toBe(500);
      expect(answer.body.error).toMatch(/^Shout: Function timed out after 2000 ms/);
    }
    expect(health.slowestInMs).toBeLessThan(1000);
  });

  it('fails a memory bomb in its own run and gives the memory back', async () => {
    const tenant = await service.get().newTenant('bomber');
    const warm = await deployed(tenant, 'return 1');
    await tenant.call('POST', `/api/workflows/${warm}/execute`, {});
    const before = process.memoryUsage().rss;
    const id = await deployed(
      tenant,
      'const parts = []; while (true) parts.push(new Uint8Array(16 * 1024 * 1024));',
    );

    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {});

    expect(answer.status).toBe(500);
    expect(answer.body.error).toMatch(/^Shout: .*out of memory/);
    // The worker that grew is retired in the background; wait for its memory to be returned.
    await expect
      .poll(() => process.memoryUsage().rss - before, { timeout: 10_000, interval: 100 })
      .toBeLessThan(50 * megabyte);
  });

  it('fails a 50 MB result with an error naming the cap and stores nothing of it', async () => {
    const tenant = await service.get().newTenant('hoarder');
    const id = await deployed(tenant, 'return "x".repeat(50 * 1024 * 1024)');

    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {});

    expect(answer.status).toBe(500);
    expect(answer.body.error).toBe(
      "Shout: Function result is larger than 5 MB, the limit of one block's output",
    );
    expect(await largestFileIn(service.get().service.dataDir)).toBeLessThan(megabyte);
  });
});
