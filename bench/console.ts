/**
 * The console opening a run with a trace of 1,000 iterations (a loop of 1,000: 2,003 rows in its
 * waterfall), from navigation to the tree rendered, beside the same page opening a three-block run
 * (the baseline: the page, its requests and a small tree), in rounds that alternate the two; and
 * the End key on the long trace to its last row. Target: the long trace opens in under 1 s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startLocalService } from '../local/service';
import { launchChromium } from '../test/support/browser';
import { consoleUrlOf, loopGraph, namedWorkflow, ranOnce, signedIn } from '../test/support/console';
import { unreachableRateLimitsJson } from '../support/limits';
import { makeClient, threeBlockGraph } from '../test/support/service';
import { percentile } from './load';

export const consoleTraceTargetInMs = 1_000;
const iterations = 1_000;

export interface ConsoleBench {
  rounds: number;
  /** Rows of each tree: root, Start, the loop, an iteration and its step per iteration, Parse. */
  traceRows: number;
  baselineRows: number;
  traceOpenInMs: { p50: number; max: number; all: number[] };
  baselineOpenInMs: { p50: number; max: number; all: number[] };
  /** The End key on the long trace's first row, to its last row focused. */
  traceScrollToEndInMs: { p50: number; max: number; all: number[] };
}

/**
 * A fresh load of the run's page; answers the milliseconds from navigation start to the tree drawn:
 * all `rows` laid out (the tree's height) and the items in view in the page, checked every frame.
 */
async function openInMs(page: Page, url: string, rows: number): Promise<number> {
  await page.goto('about:blank');
  await page.goto(url);
  // A string, evaluated in the page: this module is type checked without the DOM's names.
  const done = await page.waitForFunction(
    `document.querySelector('[role="tree"]')?.getAttribute('data-rows') === '${rows}' &&
      document.querySelector('[role="treeitem"][aria-selected="true"]') !== null && performance.now()`,
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
  return Math.round(Number(await done.jsonValue()));
}

/** From the first row to the last by the End key: milliseconds until the last span's row is drawn. */
async function scrollToEndInMs(page: Page, lastSpan: string): Promise<number> {
  await page.locator('[role="treeitem"][aria-selected="true"]').focus();
  const started = await page.evaluate<number>('performance.now()');
  await page.keyboard.press('End');
  const done = await page.waitForFunction(
    `document.activeElement?.getAttribute('aria-label')?.startsWith(${JSON.stringify(lastSpan)}) === true && performance.now()`,
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
  return Math.round(Number(await done.jsonValue()) - started);
}

function summary(times: number[]): { p50: number; max: number; all: number[] } {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), max: sorted[sorted.length - 1], all: times };
}

export async function benchConsole(
  rounds = Number(process.env.BENCH_CONSOLE_ROUNDS ?? 7),
): Promise<ConsoleBench> {
  const saved = { ...process.env };
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.RATE_LIMITS_JSON = unreachableRateLimitsJson;
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-console-'));
  const service = await startLocalService({ dataDir, port: 0, adminKey: 'bench-admin-key' });
  const browser = await launchChromium();
  try {
    const tenant = await makeClient(service).newTenant('bench-console');
    const long = await ranOnce(
      tenant,
      await namedWorkflow(tenant, 'Long loop', loopGraph(iterations, false)),
    );
    const small = await ranOnce(tenant, await namedWorkflow(tenant, 'Small', threeBlockGraph()), {
      name: 'ada',
    });
    const traceRows = 3 + iterations * 2 + 1;
    const baselineRows = 4;
    // The probes below are strings evaluated in the page, which the console's CSP (no eval) refuses;
    // bypassing it changes nothing the page itself loads or runs.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    const url = consoleUrlOf(service.url);
    await signedIn(page, url, tenant.apiKey);
    const runUrl = (executionId: string) => `${url}#/w/${tenant.workspaceId}/runs/log_${executionId}`;
    // One of each first: the browser's caches and the service's lookups warm.
    await openInMs(page, runUrl(long), traceRows);
    await openInMs(page, runUrl(small), baselineRows);
    const trace: number[] = [];
    const baseline: number[] = [];
    const scroll: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      baseline.push(await openInMs(page, runUrl(small), baselineRows));
      trace.push(await openInMs(page, runUrl(long), traceRows));
      scroll.push(await scrollToEndInMs(page, 'Parse'));
    }
    return {
      rounds,
      traceRows,
      baselineRows,
      traceOpenInMs: summary(trace),
      baselineOpenInMs: summary(baseline),
      traceScrollToEndInMs: summary(scroll),
    };
  } finally {
    await browser.close();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
    process.env = saved;
  }
}

export function printConsoleBench(bench: ConsoleBench): void {
  const line = (name: string, times: { p50: number; max: number }) =>
    `  ${name.padEnd(34)} p50 ${String(times.p50).padStart(5)} ms, max ${String(times.max).padStart(5)} ms`;
  console.log(
    `\nConsole: opening a run's page, navigation to its trace rendered, ${bench.rounds} rounds alternating`,
  );
  console.log(line(`3-block run (${bench.baselineRows} rows, baseline)`, bench.baselineOpenInMs));
  console.log(line(`loop of 1,000 (${bench.traceRows} rows)`, bench.traceOpenInMs));
  console.log(line('  End key to its last row', bench.traceScrollToEndInMs));
  const verdict = bench.traceOpenInMs.p50 < consoleTraceTargetInMs ? 'within' : 'OVER';
  console.log(
    `  the 1,000-iteration trace adds ${bench.traceOpenInMs.p50 - bench.baselineOpenInMs.p50} ms at p50: ${verdict} the ${consoleTraceTargetInMs} ms target`,
  );
}
