/**
 * The sandbox pool with real worker threads: user code off the main thread, time and memory limits
 * that hold even when user code cannot be interrupted, cancellation, back-pressure, and `fetch`
 * answered on the main thread.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandboxPool, type SandboxPool, type SandboxPoolOptions } from '../../../adapters/sandbox/pool';
import type { SandboxError } from '../../../adapters/sandbox/quickjs';
import type { CodeRunRequest } from '../../../core/engine/types';
import type { HttpClient } from '../../../core/net/http';

const megabyte = 1024 * 1024;
let pool: SandboxPool | undefined;

function poolOf(options: SandboxPoolOptions = {}): SandboxPool {
  pool = createSandboxPool({ size: 2, ...options });
  return pool;
}

function run(sandbox: SandboxPool, code: string, extra: Partial<CodeRunRequest> = {}) {
  return sandbox.run({ code, timeoutInMs: 5000, memoryLimitInBytes: 64 * megabyte, ...extra });
}

async function failureOf(promise: Promise<unknown>): Promise<SandboxError> {
  try {
    await promise;
  } catch (error) {
    return error as SandboxError;
  }
  throw new Error('expected the run to fail');
}

/**
 * Sorting a large typed array is one call into QuickJS's C code, during which its interrupt handler
 * is never called: a stand-in for any host call that does not stop at the time limit.
 */
const uninterruptibleSort = `
  const a = new Float64Array(1 << 23);
  for (let i = 0; i < 4096; i++) a[i] = (i * 2654435761) % 1000003;
  for (let k = 4096; k < a.length; k *= 2) a.set(a.subarray(0, k), k);
  a.sort();
  return 'sorted';`;

afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('sandbox pool', () => {
  it('runs a function on a worker thread and answers its result and console output', async () => {
    const sandbox = poolOf();

    const answer = await run(sandbox, 'console.log("hi", {a: 1}); return [1, "two", {three: 3}]');

    expect(answer).toEqual({ result: [1, 'two', { three: 3 }], stdout: 'hi { a: 1 }\n' });
  });

  it('counts a worker ready once it has answered and made its next sandbox, and not while it runs', async () => {
    // Prepare
    const sandbox = poolOf({ size: 1 });
    await run(sandbox, 'return 1');
    await expect.poll(() => sandbox.stats().ready).toBe(1);

    // Act
    const looping = failureOf(run(sandbox, 'while (true) {}', { timeoutInMs: 1000 }));
    const whileRunning = sandbox.stats();
    await looping;

    // Assess
    expect(whileRunning).toMatchObject({ busy: 1, ready: 0 });
    await expect.poll(() => sandbox.stats()).toMatchObject({ busy: 0, ready: 1, workersStarted: 1 });
  });

  it('answers other runs while one function loops forever', async () => {
    const sandbox = poolOf();
    const looping = failureOf(run(sandbox, 'while (true) {}', { timeoutInMs: 1500 }));
    let loopEnded = false;
    void looping.then(() => {
      loopEnded = true;
    });

    const quick = await run(sandbox, 'return 6 * 7');

    expect(quick.result).toBe(42);
    expect(loopEnded).toBe(false);
    const error = await looping;
    expect(error).toMatchObject({ kind: 'timeout', message: 'Function timed out after 1500 ms' });
  });

  it('ends a run at its time limit when user code is inside a host call, and replaces the worker', async () => {
    const sandbox = poolOf({ size: 1, terminateGraceInMs: 100, heapLimitInBytes: 512 * megabyte });

    const error = await failureOf(
      run(sandbox, uninterruptibleSort, { timeoutInMs: 100, memoryLimitInBytes: 256 * megabyte }),
    );

    expect(error).toMatchObject({ kind: 'timeout', message: 'Function timed out after 100 ms' });
    expect(sandbox.stats().workersStarted).toBe(1);
    expect((await run(sandbox, 'return "fresh"')).result).toBe('fresh');
    expect(sandbox.stats().workersStarted).toBe(2);
  });

  it('cancels a looping run through its signal and keeps the worker', async () => {
    // A generous grace: on a loaded machine the worker thread may wait for a core before it notices.
    const sandbox = poolOf({ size: 1, terminateGraceInMs: 10_000 });
    const controller = new AbortController();
    const looping = failureOf(run(sandbox, 'while (true) {}', { signal: controller.signal }));
    await expect.poll(() => sandbox.stats().busy).toBe(1);

    controller.abort();

    expect(await looping).toMatchObject({ kind: 'cancelled', message: 'Function was cancelled' });
    expect((await run(sandbox, 'return "next"')).result).toBe('next');
    expect(sandbox.stats().workersStarted).toBe(1);
  });

  it('fails a memory bomb with an out-of-memory error and retires the worker that grew', async () => {
    const sandbox = poolOf({ size: 1 });
    await run(sandbox, 'return 1');

    const error = await failureOf(
      run(sandbox, 'const parts = []; while (true) parts.push("x".repeat(1 << 20) + parts.length);'),
    );

    expect(error.kind).toBe('memory');
    expect(error.message).toMatch(/out of memory/);
    expect((await run(sandbox, 'return "after"')).result).toBe('after');
    expect(sandbox.stats().workersStarted).toBe(2);
  });

  it('refuses a run at once when the queue is full', async () => {
    const sandbox = poolOf({ size: 1, maxQueuedRuns: 1 });
    const controller = new AbortController();
    const busy = failureOf(run(sandbox, 'while (true) {}', { signal: controller.signal }));
    const queued = failureOf(run(sandbox, 'return 1', { signal: controller.signal }));

    const refused = await failureOf(run(sandbox, 'return 2'));

    expect(refused.message).toBe('The sandbox is busy: 1 function runs are waiting already; try again later');
    controller.abort();
    await Promise.all([busy, queued]);
  });

  it('lets a run wait for a worker no longer than its own time limit', async () => {
    const sandbox = poolOf({ size: 1 });
    const controller = new AbortController();
    const busy = failureOf(run(sandbox, 'while (true) {}', { signal: controller.signal }));

    const waited = await failureOf(run(sandbox, 'return 1', { timeoutInMs: 200 }));

    expect(waited).toMatchObject({
      kind: 'timeout',
      message: 'Function timed out after 200 ms waiting for a free sandbox',
    });
    controller.abort();
    await busy;
  });

  it('answers the sandbox fetch through the request HTTP client on the main thread', async () => {
    const sandbox = poolOf();
    const seen: string[] = [];
    const http: HttpClient = {
      async request(request) {
        seen.push(`${request.method} ${request.url} ${String(request.body)}`);
        return {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: new TextEncoder().encode(JSON.stringify({ ok: true })),
        };
      },
    };

    const answer = await run(
      sandbox,
      'const response = await fetch("https://api.example.test/x", {method: "POST", body: "hi"}); return await response.json()',
      { http },
    );

    expect(answer.result).toEqual({ ok: true });
    expect(seen).toEqual(['POST https://api.example.test/x hi']);
  });

  it('passes a refusal of the HTTP client to the function as a failed fetch', async () => {
    const sandbox = poolOf();
    const http: HttpClient = {
      request: async () => {
        throw new Error('Refused: 169.254.169.254 is a link-local address');
      },
    };

    const answer = await run(
      sandbox,
      'try { await fetch("http://169.254.169.254/"); } catch (error) { return String(error) }',
      { http },
    );

    expect(answer.result).toBe('TypeError: Refused: 169.254.169.254 is a link-local address');
  });

  it('fails a result over the cap before it leaves the sandbox, naming the cap', async () => {
    const sandbox = poolOf();

    const error = await failureOf(run(sandbox, 'return "x".repeat(5000)', { maxResultBytes: 1024 }));

    expect(error.message).toBe("Function result is larger than 1 KB, the limit of one block's output");
  });
});
