/**
 * `npm run bench:profile`: a CPU profile of the service answering sync runs of the 3-block
 * workflow (start → function → response), and where that time goes, layer by layer.
 *
 * The service runs in its own process (bench/servers.ts), which samples its CPU (the V8 profiler,
 * as `node --cpu-prof` does) from the moment it is ready until it is stopped, so that starting the
 * stack and making the tenants stay out of it; the load comes from this process (1 client, then
 * 16). Each sample is charged to the innermost frame of the project or of a dependency on its
 * stack (so Node's own HTTP and stream code counts for whoever called it), and that frame to a layer.
 *
 *   npm run bench:profile                      3,000 runs per concurrency
 *   BENCH_REQUESTS=600 npm run bench:profile   fewer
 *   npm run bench:profile -- async             500 async jobs (BENCH_ASYNC_JOBS) at 16 clients, polled to the end
 *   npm run bench:profile -- <file.cpuprofile> [--runs <n>]   only the table, of a profile taken before
 *
 * The .cpuprofile is kept under bench/results/ (open it in Chrome DevTools or speedscope for the
 * flame graph); the table goes to the terminal and to bench/results/profile.md.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { runAsyncLoad } from './async';
import { type LoadResult, runLoad } from './load';
import { layerOf, type ProfileNode, summarize } from './profile-layers';
import { startBenchService } from './service-process';

const requestsPerRun = Number(process.env.BENCH_REQUESTS ?? 3000);
const asyncJobs = Number(process.env.BENCH_ASYNC_JOBS ?? 500);
const profilesAsync = process.argv.slice(2).includes('async');

async function profileService(): Promise<{ file: string; loads: LoadResult[] }> {
  await mkdir('bench/results', { recursive: true });
  const kind = profilesAsync ? 'async-job' : 'sync-run';
  const file = resolve(`bench/results/${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
  // The profile is written as the service stops, so stop() waits for it.
  const { target, stop } = await startBenchService(undefined, { BENCH_PROFILE_FILE: file });
  try {
    const loads = profilesAsync
      ? [asLoad(await runAsyncLoad(target, asyncJobs, 16))]
      : [await runLoad(target, 1, requestsPerRun), await runLoad(target, 16, Math.ceil(requestsPerRun / 16))];
    return { file, loads };
  } finally {
    await stop();
  }
}

/** An async load in the shape of the sync ones: jobs for runs, completed jobs per second for throughput. */
function asLoad(result: Awaited<ReturnType<typeof runAsyncLoad>>): LoadResult {
  return {
    concurrency: result.concurrency,
    requests: result.jobs,
    errors: result.failed,
    durationInMs: result.enqueueToCompletedInMs,
    throughputPerSecond: result.completedPerSecond,
    p50InMs: Number.NaN,
    p99InMs: Number.NaN,
  };
}

const given = process.argv.slice(2).find((arg) => arg.endsWith('.cpuprofile'));
const { file, loads } = given ? { file: given, loads: [] } : await profileService();
const profile = JSON.parse(await readFile(file, 'utf8')) as {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
};
const summary = summarize(profile, layerOf);
// A profile read from a file says nothing of its load: `--runs <n>` gives the per-run column.
const runsGiven = process.argv.indexOf('--runs');
const runs =
  runsGiven > 0 ? Number(process.argv[runsGiven + 1]) : loads.reduce((sum, load) => sum + load.requests, 0);
const perRun = (ms: number) => (runs ? (ms / runs).toFixed(3) : '');
const lines = [
  `Profile: ${file}`,
  ...loads.map((load) =>
    profilesAsync
      ? `  load: ${load.requests} async jobs at ${load.concurrency} clients: ${load.throughputPerSecond} jobs/s to the last completed`
      : `  load: ${load.requests} sync runs at ${load.concurrency} client(s): ${load.throughputPerSecond}/s, p50 ${load.p50InMs} ms`,
  ),
  '',
  '| layer | ms | ms per run | share of busy time |',
  '| --- | ---: | ---: | ---: |',
  ...summary.layers.map(
    (layer) =>
      `| ${layer.name} | ${Math.round(layer.ms)} | ${perRun(layer.ms)} | ${((layer.ms / summary.busyMs) * 100).toFixed(1)}% |`,
  ),
  '',
  `Busy ${Math.round(summary.busyMs)} ms (${perRun(summary.busyMs)} ms per run), idle ${Math.round(summary.idleMs)} ms.`,
  '',
  'Top functions by self time (where the sample was taken):',
  '',
  '| function | where | ms |',
  '| --- | --- | ---: |',
  ...summary.topFunctions.map((fn) => `| ${fn.name} | ${fn.where} | ${Math.round(fn.ms)} |`),
];
console.log(lines.join('\n'));
await writeFile('bench/results/profile.md', `${lines.join('\n')}\n`);
