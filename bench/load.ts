/** A small closed-loop HTTP load generator: N clients, each sending its next request on the last answer. */
import { Agent, request } from 'node:http';

export interface Target {
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Other users' requests of the same kind: with `spread`, client i sends `users[i % n]`'s. */
  users?: { path: string; headers: Record<string, string> }[];
}

export interface LoadResult {
  concurrency: number;
  requests: number;
  errors: number;
  durationInMs: number;
  throughputPerSecond: number;
  p50InMs: number;
  p99InMs: number;
}

/** One request of `target` through `agent`: its status once the whole answer is read. */
export function send(target: Target, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(target.path, target.url);
    const req = request(url, { method: 'POST', headers: target.headers, agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(target.body);
  });
}

export function percentile(sortedValues: number[], fraction: number): number {
  if (sortedValues.length === 0) return Number.NaN;
  const index = Math.min(sortedValues.length - 1, Math.ceil(fraction * sortedValues.length) - 1);
  return sortedValues[Math.max(0, index)];
}

export async function runLoad(
  target: Target,
  concurrency: number,
  requestsPerClient: number,
  options: { spread?: boolean } = {},
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      const users = options.spread ? (target.users ?? []) : [];
      const own = users.length ? { ...target, ...users[client % users.length] } : target;
      for (let i = 0; i < requestsPerClient; i++) {
        const before = performance.now();
        const status = await send(own, agent);
        latencies.push(performance.now() - before);
        if (status !== 200) errors += 1;
      }
    }),
  );
  const durationInMs = performance.now() - started;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    requests: latencies.length,
    errors,
    durationInMs: Math.round(durationInMs),
    throughputPerSecond: Math.round((latencies.length / durationInMs) * 1000),
    p50InMs: Number(percentile(latencies, 0.5).toFixed(2)),
    p99InMs: Number(percentile(latencies, 0.99).toFixed(2)),
  };
}
