import { mkdir, writeFile } from 'node:fs/promises';
import {
  bundleAll,
  bundleLimitInBytesOf,
  bundleSizeLimitInBytes,
  isRoute,
  limitText,
  routeBundleLimitInBytes,
  routeInitLimitInMs,
} from '../scripts/bundle';
import { runAsyncLoad } from './async';
import { initRunsPerBundle, measureBundleInit } from './bundle-init';
import { benchConsole, printConsoleBench } from './console';
import { benchEngine, printEngineBench } from './engine';
import { type LoadResult, runLoad, type Target } from './load';
import { benchFiles, printFilesBench } from './files';
import { benchForms, printFormsBench } from './forms';
import { benchLimits, printLimitsBench } from './limits';
import { benchLogs, printLogsBench } from './logs';
import { benchNotifications, printNotificationsBench } from './notifications';
import { startBenchServer, startBenchService } from './service-process';
import { benchStackStart, printStackStartBench } from './stack';
import { benchStateMachine, printStateMachineBench } from './state-machine';
import { measureFirstByte } from './stream';

const sectionNames = [
  'engine',
  'state-machine',
  'stack',
  'limits',
  'logs',
  'files',
  'notifications',
  'forms',
  'console',
  'sync',
  'async',
  'bundles',
] as const;
type Section = (typeof sectionNames)[number];
const chosen = process.argv.slice(2).filter((arg) => arg !== '--');
for (const name of chosen) {
  if (!(sectionNames as readonly string[]).includes(name)) {
    throw new Error(`Unknown bench section "${name}"; choose from ${sectionNames.join(', ')}`);
  }
}
const runs = (section: Section) => chosen.length === 0 || chosen.includes(section);

const concurrencies = [1, 16];
const requestsPerRun = Number(process.env.BENCH_REQUESTS ?? 3000);
const warmupRequests = Number(process.env.BENCH_WARMUP ?? 1000);
/** Rounds of each concurrency, the baseline and the service one after the other in each. */
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

async function measure(target: Target): Promise<LoadResult[]> {
  await runLoad(target, 4, warmupRequests / 4);
  const results: LoadResult[] = [];
  for (const concurrency of concurrencies) {
    results.push(await runLoad(target, concurrency, Math.ceil(requestsPerRun / concurrency)));
  }
  return results;
}

interface Pair {
  baseline: LoadResult;
  service: LoadResult;
}

/** How far the service is from the baseline: its p50 over theirs at one client, their throughput over its at more. */
const gapOf = ({ baseline, service }: Pair) =>
  service.concurrency === 1
    ? service.p50InMs / baseline.p50InMs
    : baseline.throughputPerSecond / service.throughputPerSecond;

/**
 * The service against the baseline at each concurrency, in rounds that alternate the two, so that a
 * machine whose speed drifts over minutes (a shared virtual machine) moves both figures of a round
 * alike; the round with the median gap stands for the concurrency, and every round is kept.
 */
async function measurePairs(baseline: Target, service: Target): Promise<{ median: Pair; rounds: Pair[] }[]> {
  await runLoad(baseline, 4, warmupRequests / 4);
  await runLoad(service, 4, warmupRequests / 4);
  const measured: { median: Pair; rounds: Pair[] }[] = [];
  for (const concurrency of concurrencies) {
    const perClient = Math.ceil(requestsPerRun / rounds / concurrency);
    const pairs: Pair[] = [];
    for (let round = 0; round < rounds; round++) {
      pairs.push({
        baseline: await runLoad(baseline, concurrency, perClient),
        service: await runLoad(service, concurrency, perClient),
      });
    }
    const sorted = [...pairs].sort((a, b) => gapOf(a) - gapOf(b));
    measured.push({ median: sorted[Math.floor((sorted.length - 1) / 2)], rounds: pairs });
  }
  return measured;
}

/** The service's p50 over the baseline's, and its throughput as a share of theirs, as printed. */
const p50RatioOf = (result: LoadResult, baseline: LoadResult) =>
  (result.p50InMs / baseline.p50InMs).toFixed(1);
const throughputShareOf = (result: LoadResult, baseline: LoadResult) =>
  ((result.throughputPerSecond / baseline.throughputPerSecond) * 100).toFixed(1);

function row(name: string, result: LoadResult, baseline: LoadResult): string {
  const ratio = p50RatioOf(result, baseline);
  const throughputShare = throughputShareOf(result, baseline);
  return [
    name.padEnd(10),
    String(result.concurrency).padStart(3),
    `${result.throughputPerSecond}/s`.padStart(9),
    `${result.p50InMs} ms`.padStart(10),
    `${result.p99InMs} ms`.padStart(10),
    `${ratio}×`.padStart(8),
    `${throughputShare}%`.padStart(9),
    String(result.errors).padStart(6),
  ].join('  ');
}

// The engine first, on a quiet machine, before the servers start.
const results: Record<string, unknown> = {
  measuredAt: new Date().toISOString(),
  machine: { node: process.version, cpus: (await import('node:os')).cpus().length },
};
async function section<T>(name: Section, key: string, bench: () => Promise<T>, print: (result: T) => void) {
  if (!runs(name)) return;
  const result = await bench();
  print(result);
  results[key] = result;
}
await section('engine', 'engine', benchEngine, printEngineBench);
await section('state-machine', 'stateMachine', benchStateMachine, printStateMachineBench);
await section('stack', 'stackStart', benchStackStart, printStackStartBench);
await section('limits', 'limits', benchLimits, printLimitsBench);
await section('logs', 'logs', benchLogs, printLogsBench);
await section('files', 'files', benchFiles, printFilesBench);
await section('notifications', 'notifications', benchNotifications, printNotificationsBench);
await section('forms', 'forms', benchForms, printFormsBench);
await section('console', 'console', benchConsole, printConsoleBench);

const header = [
  'target'.padEnd(10),
  '  c',
  'throughput'.padStart(9),
  'p50'.padStart(10),
  'p99'.padStart(10),
  'p50 ratio',
  'of base',
  'errors',
].join('  ');

async function benchServers() {
  const baselineServer = runs('sync') ? await startBenchServer(['baseline']) : undefined;
  const serviceServer = await startBenchService();
  try {
    const pairs = baselineServer
      ? await measurePairs(baselineServer.target, serviceServer.target)
      : undefined;
    const service = pairs ? pairs.map((pair) => pair.median.service) : await measure(serviceServer.target);
    const syncAtC16 = service[concurrencies.indexOf(16)];
    if (baselineServer && pairs) {
      const baseline = pairs.map((pair) => pair.median.baseline);
      console.log(
        '\nSync execution of start → function → response, local HTTP server vs bare node:http ' +
          `(${rounds} rounds each, alternately; the round with the median ratio)`,
      );
      console.log(header);
      for (let i = 0; i < concurrencies.length; i++) {
        console.log(row('baseline', baseline[i], baseline[i]));
        console.log(row('service', service[i], baseline[i]));
        const each = pairs[i].rounds.map(({ service: ran, baseline: base }) =>
          concurrencies[i] === 1
            ? `p50 ${ran.p50InMs} ms (${p50RatioOf(ran, base)}×)`
            : `${ran.throughputPerSecond}/s (${throughputShareOf(ran, base)}%)`,
        );
        console.log(`${''.padEnd(10)}  rounds: ${each.join(', ')}`);
      }
      // The same load from 16 users, one client each: no user's own records are shared by the clients.
      const baselineAtC16 = baseline[concurrencies.indexOf(16)];
      const spread = await runLoad(serviceServer.target, 16, Math.ceil(requestsPerRun / 16), {
        spread: true,
      });
      console.log(row('16 users', spread, baselineAtC16));
      results.syncExecution = {
        workflow: 'start → function → response',
        baseline,
        service,
        rounds: pairs.map((pair) => pair.rounds),
        sixteenUsers: spread,
      };

      // Streamed runs of the same workflow: time to the first byte of the event stream.
      const streamRequests = Number(process.env.BENCH_STREAM_REQUESTS ?? 300);
      const streamBaseline = await measureFirstByte(baselineServer.target, '/stream', streamRequests);
      const streamService = await measureFirstByte(
        serviceServer.target,
        serviceServer.target.path,
        streamRequests,
      );
      console.log(
        `\nStreamed execution (stream: true) of the same workflow, time to the first SSE byte, one at a time`,
      );
      console.log(
        `  service p50 ${streamService.p50InMs} ms, p99 ${streamService.p99InMs} ms; baseline p50 ${streamBaseline.p50InMs} ms ` +
          `(${(streamService.p50InMs / streamBaseline.p50InMs).toFixed(1)}×)`,
      );
      results.streamedExecution = {
        workflow: 'start → function → response',
        baseline: streamBaseline,
        service: streamService,
      };
    }

    if (runs('async')) {
      // Async runs of the same workflow; the baseline is the service's own sync throughput at c16.
      const asyncJobs = Number(process.env.BENCH_ASYNC_JOBS ?? 500);
      const asyncResult = await runAsyncLoad(serviceServer.target, asyncJobs, 16);
      console.log(
        `\nAsync execution of the same workflow: ${asyncJobs} jobs, 16 clients, enqueue to completed`,
      );
      console.log(
        `  enqueue ${asyncResult.enqueuePerSecond}/s; completed ${asyncResult.completedPerSecond} jobs/s in ` +
          `${asyncResult.enqueueToCompletedInMs} ms (${(asyncResult.completedPerSecond / syncAtC16.throughputPerSecond).toFixed(2)}× ` +
          `sync runs/s at c16, ${syncAtC16.throughputPerSecond}/s); failed ${asyncResult.failed}`,
      );
      results.asyncExecution = {
        workflow: 'start → function → response',
        ...asyncResult,
        syncBaseline: syncAtC16,
      };
    }
  } finally {
    baselineServer?.child.kill();
    await serviceServer.stop();
  }
}
if (runs('sync') || runs('async')) await benchServers();

if (runs('bundles')) {
  console.log(
    '\nLambda bundles (esbuild, minified, the AWS SDK inside, on-demand packages external): size against its limit ' +
      `(API routes ${limitText(routeBundleLimitInBytes)}, executionStep and the other workers ${limitText(bundleSizeLimitInBytes)}), ` +
      `and init in a fresh Node process (median of ${initRunsPerBundle}; API routes ${routeInitLimitInMs} ms)`,
  );
  const sizes = await bundleAll();
  const { inits, baseline } = await measureBundleInit(sizes.map((bundle) => bundle.id));
  const bundles = sizes.map((bundle, index) => ({
    ...bundle,
    limitInBytes: bundleLimitInBytesOf(bundle.id),
    initInMs: inits[index].initInMs,
    initCpuInMs: inits[index].initCpuInMs,
    ...(isRoute(bundle.id) ? { initLimitInMs: routeInitLimitInMs } : {}),
  }));
  console.log(
    `${'function'.padEnd(32)} ${'size'.padStart(11)} ${'limit'.padStart(8)} ${'init'.padStart(10)} ${'limit'.padStart(8)} ${'init CPU'.padStart(10)}`,
  );
  for (const bundle of bundles) {
    const over = [
      ...(bundle.bytes > bundle.limitInBytes ? ['size'] : []),
      ...(bundle.initLimitInMs !== undefined && bundle.initInMs > bundle.initLimitInMs ? ['init'] : []),
    ];
    console.log(
      `${bundle.id.padEnd(32)} ${`${(bundle.bytes / 1024).toFixed(1)} KB`.padStart(11)} ${limitText(bundle.limitInBytes).padStart(8)} ` +
        `${`${bundle.initInMs} ms`.padStart(10)} ${(bundle.initLimitInMs ? `${bundle.initLimitInMs} ms` : '').padStart(8)} ` +
        `${`${bundle.initCpuInMs} ms`.padStart(10)}` +
        (over.length ? `  over: ${over.join(', ')}` : ''),
    );
  }
  const routeBundles = bundles.filter((bundle) => isRoute(bundle.id));
  const range = (values: number[], unit: string) =>
    `${Math.min(...values).toFixed(1)} to ${Math.max(...values).toFixed(1)} ${unit}`;
  const overLimit = bundles.filter(
    (bundle) =>
      bundle.bytes > bundle.limitInBytes ||
      (bundle.initLimitInMs !== undefined && bundle.initInMs > bundle.initLimitInMs),
  );
  console.log(
    `API routes: ${range(
      routeBundles.map((bundle) => bundle.bytes / 1024),
      'KB',
    )}, init ${range(
      routeBundles.map((bundle) => bundle.initInMs),
      'ms',
    )}; ${overLimit.length ? `over a limit: ${overLimit.map((bundle) => bundle.id).join(', ')}` : 'none over a limit'}`,
  );
  console.log(
    `Baseline of the same run: a fresh Node process starts and exits in ${baseline.nodeStartInMs} ms (median): ` +
      'the further above its time on a quiet machine, the busier this one was, and init with it',
  );
  results.bundles = bundles;
  results.bundleInitBaseline = baseline;
}

const file = chosen.length ? `bench/results/latest-${chosen.join('-')}.json` : 'bench/results/latest.json';
await mkdir('bench/results', { recursive: true });
await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nWritten to ${file}`);
