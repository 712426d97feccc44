/**
 * Time to the first byte of a streamed execute (`stream: true`): from sending the request to the
 * first byte of the event stream's body, one request at a time, against a bare node:http server
 * streaming the same frames in the same run.
 */
import { Agent, request } from 'node:http';
import { percentile, type Target } from './load';

export interface FirstByteResult {
  requests: number;
  p50InMs: number;
  p99InMs: number;
}

function firstByteInMs(target: Target, path: string, body: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      new URL(path, target.url),
      { method: 'POST', headers: target.headers, agent },
      (response) => {
        if (response.statusCode !== 200)
          reject(new Error(`Streamed execute answered ${response.statusCode}`));
        let firstAt: number | undefined;
        response.on('data', () => {
          firstAt ??= performance.now() - started;
        });
        response.on('end', () => resolve(firstAt ?? Number.NaN));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function measureFirstByte(
  target: Target,
  path: string,
  requests: number,
): Promise<FirstByteResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ ...JSON.parse(target.body), stream: true });
  for (let i = 0; i < 20; i++) await firstByteInMs(target, path, body, agent);
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push(await firstByteInMs(target, path, body, agent));
  agent.destroy();
  times.sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 100) / 100;
  return { requests, p50InMs: round(percentile(times, 0.5)), p99InMs: round(percentile(times, 0.99)) };
}
