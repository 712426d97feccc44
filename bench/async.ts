/**
 * Asynchronous throughput: N jobs accepted by the execute route (`X-Execution-Mode: async`) at a
 * given concurrency, then polled until every one has completed. The figure is jobs per second from
 * the first request to the last job seen completed (to within the 100 ms polling interval);
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
  /** Called whenever the clock stops (again): when the last job is seen finished, or a later one. */
  onClockStopped?: () => void,
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

  // Jobs finish about in the order they were accepted. The last one is polled at a slow pace (the
  // polling would otherwise take a share of the service the jobs need); the clock stops when it is
  // seen finished, and the others are then checked, the clock moving on only for one still running.
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
  let finishedAt = 0;
  const waitFor = async (taskId: string, pollInMs: number) => {
    let polls = 0;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`Job ${taskId} did not finish in 10 minutes`);
      const status = await statusOf(taskId);
      polls++;
      if (status !== 'queued' && status !== 'processing') {
        if (status !== 'completed') failed++;
        // A job found finished at its first look finished before the clock stopped already.
        if (polls > 1 || finishedAt === 0) {
          finishedAt = performance.now();
          onClockStopped?.();
        }
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, pollInMs));
    }
  };
  await waitFor(taskIds[taskIds.length - 1], 100);
  for (const taskId of taskIds.slice(0, -1)) await waitFor(taskId, 20);
  const totalInMs = finishedAt - started;
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
