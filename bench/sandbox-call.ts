/**
 * The sandbox pool's `run` one call at a time, as a sync run makes it: a function block's code with
 * an HTTP client (so with `fetch`), the main thread busy between calls (`--gap-ms`, default 3) while
 * the workers idle. Prints the p10, p50 and p90 of a call in milliseconds.
 *   npx tsx bench/sandbox-call.ts [--gap-ms 3] [--calls 1500]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createSandboxPool } from '../adapters/sandbox/pool';
import type { HttpClient } from '../core/net/http';

const { values } = parseArgs({
  options: { 'gap-ms': { type: 'string', default: '3' }, calls: { type: 'string', default: '1500' } },
});
const gapInMs = Number(values['gap-ms']);
const calls = Number(values.calls);

// Never called: the code does not fetch; a client only makes the sandbox offer `fetch`, as in the service.
const http: HttpClient = { request: () => Promise.reject(new Error('not used')) };
const request = {
  code: `return 'Hello, ' + "Ada" + '!';`,
  timeoutInMs: 10_000,
  memoryLimitInBytes: 64 * 1024 * 1024,
  maxResultBytes: 1024 * 1024,
  http,
};

const pool = createSandboxPool();
// Every worker started and its first sandbox prepared.
for (let index = 0; index < 4; index++) await pool.run(request);
await new Promise((resolve) => setTimeout(resolve, 500));

const times: number[] = [];
for (let index = 0; index < calls; index++) {
  const startedAt = performance.now();
  await pool.run(request);
  times.push(performance.now() - startedAt);
  const busyUntil = performance.now() + gapInMs;
  while (performance.now() < busyUntil) {
    // The main thread at work on the rest of a run.
  }
  await new Promise((resolve) => setImmediate(resolve));
}
await pool.close();
times.sort((a, b) => a - b);
const at = (share: number) => times[Math.floor(times.length * share)].toFixed(3);
console.log(
  `sandbox call, one at a time, ${gapInMs} ms busy between: p10 ${at(0.1)} ms, p50 ${at(0.5)} ms, p90 ${at(0.9)} ms`,
);
