/**
 * Asynchronous throughput: N jobs accepted by the execute route (`X-Execution-Mode: async`) at a
 * given concurrency, then polled until every one has completed. The figure is jobs per second from
 * the first request to the last job seen completed (to within the 20 ms polling interval);
 * enqueueing alone is reported beside it.
 */
import { Agent, request } from 'node:http';
import type { Target } from './load';

export interface AsyncLoadResult {
  jobs: number;
  concurrency: number;
  enqueuePerSecond: number;
  completedPerSecond: number;
  enqueueToCompletedInMs: number;
  failed: number;
}

function call(
  url: URL,
  options: { method: string; headers: Record<string, string>; body?: string },
  agent: Agent,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method, headers: options.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

async function inParallel<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

export async function runAsyncLoad(
  target: Target,
  jobs: number,
  concurrency: number,
): Promise<AsyncLoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const headers = { ...target.headers, 'x-execution-mode': 'async' };
  const started = performance.now();
  const taskIds: string[] = [];
  await inParallel(
    Array.from({ length: jobs }, (_, index) => index),
    concurrency,
    async () => {
      const answer = await call(
        new URL(target.path, target.url),
        { method: 'POST', headers, body: target.body },
        agent,
      );
      if (answer.status !== 202) throw new Error(`Async execute answered ${answer.status}: ${answer.body}`);
      taskIds.push((JSON.parse(answer.body) as { taskId: string }).taskId);
    },
  );
  const enqueuedInMs = performance.now() - started;

  // Jobs finish about in the order they were accepted: waiting on the last one first, then
  // checking the others, keeps the polling from taking a share of the service the jobs need.
  const statusHeaders = { 'x-api-key': target.headers['x-api-key'] };
  const statusOf = async (taskId: string) => {
    const answer = await call(
      new URL(`/api/jobs/${taskId}`, target.url),
      { method: 'GET', headers: statusHeaders },
      agent,
    );
    return (JSON.parse(answer.body) as { status: string }).status;
  };
  const deadline = Date.now() + 10 * 60_000;
  let failed = 0;
  for (const taskId of [taskIds[taskIds.length - 1], ...taskIds.slice(0, -1)]) {
    for (;;) {
      if (Date.now() > deadline) throw new Error(`Job ${taskId} did not finish in 10 minutes`);
      const status = await statusOf(taskId);
      if (status !== 'queued' && status !== 'processing') {
        if (status !== 'completed') failed++;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const totalInMs = performance.now() - started;
  agent.destroy();
  return {
    jobs,
    concurrency,
    enqueuePerSecond: Math.round((jobs / enqueuedInMs) * 1000),
    completedPerSecond: Math.round((jobs / totalInMs) * 1000),
    enqueueToCompletedInMs: Math.round(totalInMs),
    failed,
  };
}
