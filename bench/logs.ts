/**
 * The execution-log API at volume: a workspace's log grown to 10,000 and then to 100,000 entries
 * (`BENCH_LOG_ENTRIES`), ten workflows, 1 % errors, and at each size the latency over HTTP of the
 * queries people make: the first page, the errors, one workflow, a page deep behind a cursor. The
 * baseline is an authenticated GET that reads one item (the workflow status), on the same server
 * in the same run. Items read per request come from the core query itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoExecutionLogStore } from '../adapters/dynamodb/execution-log-store';
import { DynamoIdentityStore } from '../adapters/dynamodb/identity-store';
import { block, graphOf } from '../core/engine/builders';
import { newId } from '../core/ids';
import { listLogs } from '../core/logs/service';
import type { LogQuery } from '../core/logs/types';
import { type ExecutionLogEntry, logIdFor } from '../core/runs/log';
import type { Trigger } from '../core/triggers';
import { logDeps } from '../functions/wiring/logs';
import { startLocalService } from '../local/service';
import { unreachableRateLimitsJson } from '../support/limits';
import { percentile } from './load';

export interface LogQueryFigures {
  p50InMs: number;
  p99InMs: number;
  /** p50 over the baseline's p50. */
  ratio: number;
  itemsRead: number;
  returned: number;
}

export interface LogsAtSize {
  entries: number;
  baselineP50InMs: number;
  baselineP99InMs: number;
  queries: Record<string, LogQueryFigures>;
}

export interface LogsBench {
  requestsPerQuery: number;
  seedPerSecond: number;
  sizes: LogsAtSize[];
}

const triggers: Trigger[] = ['api', 'webhook', 'schedule', 'manual', 'chat'];

async function call(url: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

async function timed(requests: number, request: () => Promise<unknown>) {
  for (let i = 0; i < Math.min(20, requests); i++) await request();
  const latencies: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = process.hrtime.bigint();
    await request();
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  latencies.sort((a, b) => a - b);
  return {
    p50InMs: Number(percentile(latencies, 0.5).toFixed(2)),
    p99InMs: Number(percentile(latencies, 0.99).toFixed(2)),
  };
}

export async function benchLogs(
  sizes = [10_000, Number(process.env.BENCH_LOG_ENTRIES ?? 100_000)],
  requestsPerQuery = Number(process.env.BENCH_LOG_REQUESTS ?? 200),
): Promise<LogsBench> {
  const saved = { ...process.env };
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.RATE_LIMITS_JSON = unreachableRateLimitsJson;
  process.env.LOG_SETTLE_MS = '0';
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-logs-'));
  const service = await startLocalService({ dataDir, port: 0, adminKey: 'bench-admin-key' });
  try {
    const admin = { 'x-admin-key': service.adminKey };
    const user = await call(service.url, '/api/v1/admin/users', admin, {
      email: 'logs@example.com',
      name: 'Logs',
    });
    const key = await call(service.url, `/api/v1/admin/users/${user.data.id}/api-keys`, admin, {
      name: 'bench',
    });
    const workspace = await call(service.url, '/api/v1/admin/workspaces', admin, {
      name: 'Logs',
      ownerId: user.data.id,
    });
    const workspaceId = workspace.data.id as string;
    const auth = { 'x-api-key': key.data.key as string };
    const workflowIds: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await call(service.url, '/api/workflows', auth, {
        workspaceId,
        name: `Flow ${i}`,
        state: graphOf([block('start', 'start', 'Start', { inputFormat: [] })]),
      });
      workflowIds.push(created.data.id);
    }
    const principal = {
      user: (await DynamoIdentityStore.fromEnv().getUser(user.data.id)) as NonNullable<
        Awaited<ReturnType<DynamoIdentityStore['getUser']>>
      >,
      apiKeyId: 'bench',
    };

    const logs = DynamoExecutionLogStore.fromEnv();
    const newest = Date.now() - 60_000;
    const total = Math.max(...sizes);
    // Entry i is logged 5 s before entry i-1: the log grows backwards in time, so the first page is
    // the same entries at every size and only the depth behind it grows.
    const entryAt = (i: number): ExecutionLogEntry => {
      const executionId = newId('exe');
      const loggedAt = new Date(newest - i * 5_000).toISOString();
      return {
        id: logIdFor(executionId),
        workspaceId,
        workflowId: workflowIds[i % workflowIds.length] as string,
        executionId,
        level: i % 100 === 7 ? 'error' : 'info',
        trigger: triggers[i % triggers.length] as Trigger,
        startedAt: new Date(Date.parse(loggedAt) - 120).toISOString(),
        endedAt: loggedAt,
        loggedAt,
        totalDurationMs: 120,
        cost: { total: 0.001, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
        files: null,
        deploymentVersion: 1,
        models: i % 2 ? ['gpt-4o'] : [],
        executionData: { traceSpans: [], finalOutput: { i } },
      };
    };

    let seeded = 0;
    let seedTimeInMs = 0;
    const results: LogsAtSize[] = [];
    for (const size of sizes.filter((value) => value <= total)) {
      const started = Date.now();
      const concurrency = 32;
      let next = seeded;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < size) {
            const i = next++;
            await logs.putLogEntry(entryAt(i));
          }
        }),
      );
      seedTimeInMs += Date.now() - started;
      seeded = size;

      const baseline = await timed(requestsPerQuery, () =>
        call(service.url, `/api/workflows/${workflowIds[0]}/status`, auth),
      );
      // A cursor 20 pages deep (2,000 entries behind the newest).
      let deepCursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const answer = await call(
          service.url,
          `/api/v1/logs?workspaceId=${workspaceId}${deepCursor ? `&cursor=${deepCursor}` : ''}`,
          auth,
        );
        deepCursor = answer.nextCursor;
      }
      const queries: Record<string, Partial<LogQuery>> = {
        firstPage: {},
        errors: { level: 'error' },
        oneWorkflow: { workflowIds: [workflowIds[3] as string] },
        deepCursor: { cursor: deepCursor },
        webhookAndModel: { triggers: ['webhook'], model: 'gpt-4o' },
      };
      const figures: Record<string, LogQueryFigures> = {};
      for (const [name, query] of Object.entries(queries)) {
        const search = new URLSearchParams({ workspaceId });
        if (query.level) search.set('level', query.level);
        if (query.workflowIds) search.set('workflowIds', query.workflowIds.join(','));
        if (query.cursor) search.set('cursor', query.cursor);
        if (query.triggers) search.set('triggers', query.triggers.join(','));
        if (query.model) search.set('model', query.model);
        const latency = await timed(requestsPerQuery, () =>
          call(service.url, `/api/v1/logs?${search}`, auth),
        );
        const page = await listLogs(logDeps(), principal, {
          workspaceId,
          limit: 100,
          order: 'desc',
          details: 'basic',
          includeTraceSpans: false,
          includeFinalOutput: false,
          ...query,
        });
        figures[name] = {
          ...latency,
          ratio: Number((latency.p50InMs / baseline.p50InMs).toFixed(2)),
          itemsRead: page.itemsRead,
          returned: page.data.length,
        };
      }
      results.push({
        entries: size,
        baselineP50InMs: baseline.p50InMs,
        baselineP99InMs: baseline.p99InMs,
        queries: figures,
      });
    }
    return {
      requestsPerQuery,
      seedPerSecond: Math.round((seeded / seedTimeInMs) * 1000),
      sizes: results,
    };
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
    for (const name of ['POWERTOOLS_LOG_LEVEL', 'RATE_LIMITS_JSON', 'LOG_SETTLE_MS', 'ADMIN_API_KEY']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

export function printLogsBench(bench: LogsBench): void {
  console.log(
    `\nExecution log queries over HTTP, ${bench.requestsPerQuery} requests each, one at a time (seeded at ${bench.seedPerSecond} entries/s)`,
  );
  for (const size of bench.sizes) {
    console.log(
      `  ${size.entries} entries; baseline (workflow status GET) p50 ${size.baselineP50InMs} ms, p99 ${size.baselineP99InMs} ms`,
    );
    for (const [name, figures] of Object.entries(size.queries)) {
      console.log(
        `    ${name.padEnd(16)} p50 ${String(figures.p50InMs).padStart(7)} ms  p99 ${String(figures.p99InMs).padStart(7)} ms  ` +
          `${String(figures.ratio).padStart(5)}×  read ${String(figures.itemsRead).padStart(5)} items for ${figures.returned}`,
      );
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printLogsBench(await benchLogs());
}
