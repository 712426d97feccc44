/**
 * Nothing lost across a restart: a backlog of asynchronous jobs, some queued, some running, when
 * the service stops, all finish after it starts again on the same data dir, each run exactly once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { block, edge, graphOf } from '../../../core/engine/builders';
import { startLocalService } from '../../../local/service';
import { deployedWorkflow, finishedJob, makeClient, request } from '../../support/service';
import { unreachableRateLimitsJson } from '../../../support/limits';

// A backlog of one workspace's jobs, all in progress at once: out of reach of the plan's cap on runs in progress.
process.env.RATE_LIMITS_JSON = unreachableRateLimitsJson;

const jobCount = 100;
let receiver: Server;
let receiverUrl: string;
const hits = new Map<number, number>();
let dataDir: string;

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  dataDir = await mkdtemp(join(tmpdir(), 'jobs-restart-'));
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const { n } = JSON.parse(body) as { n: number };
      hits.set(n, (hits.get(n) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ seen: n }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hit`;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * start(n) → wait 3 s → api POST {n} to the receiver → response {n}: each run leaves one hit.
 * The wait keeps the runs accepted last waiting (in the machine's Wait state) when the first
 * process stops, however fast or slowly this machine accepts the requests: a backlog remains.
 */
function countingGraph() {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [{ name: 'n', type: 'number', required: true }] }),
      block('pause', 'wait', 'Pause', { durationMs: 3000 }),
      block('hit', 'api', 'Hit', { url: receiverUrl, method: 'POST', body: { n: '<start.n>' } }),
      block('respond', 'response', 'Respond', { data: { n: '<hit.data.seen>' } }),
    ],
    [edge('start', 'pause'), edge('pause', 'hit'), edge('hit', 'respond')],
  );
}

describe('a restart in the middle of a backlog of async jobs', () => {
  it('finishes every job exactly once, each with its log entry', async () => {
    // Prepare: a backlog accepted by the first process, which then stops
    const options = { dataDir, port: 0, adminKey: 'restart-admin-key', allowLoopbackOutbound: true };
    const first = await startLocalService(options);
    const client = makeClient(first);
    const tenant = await client.newTenant('backlog');
    const workflowId = await deployedWorkflow(tenant, countingGraph());
    const accepted = await Promise.all(
      Array.from({ length: jobCount }, (_, n) =>
        request(first.url, 'POST', `/api/workflows/${workflowId}/execute`, {
          headers: { 'x-api-key': tenant.apiKey, 'x-execution-mode': 'async' },
          body: { n },
        }),
      ),
    );
    await first.stop();
    const doneBeforeRestart = hits.size;

    // Act
    const second = await startLocalService(options);
    const again = makeClient(second);
    const sameTenant = { ...tenant, call: again.as(tenant.apiKey) };
    const jobs = [];
    for (const answer of accepted) jobs.push(await finishedJob(sameTenant, answer.body.taskId, 60_000));
    const logs = DynamoExecutionLogStore.fromEnv();
    const entries = await Promise.all(
      accepted.map((answer) => logs.getLogEntryByExecutionId(answer.body.taskId)),
    );
    await second.stop();

    // Assess
    expect(accepted.every((answer) => answer.status === 202)).toBe(true);
    expect(doneBeforeRestart).toBeLessThan(jobCount);
    expect(jobs.map((job) => job.body.status)).toEqual(Array(jobCount).fill('completed'));
    expect(jobs.map((job) => job.body.output.n)).toEqual(Array.from({ length: jobCount }, (_, n) => n));
    expect([...hits.values()].every((count) => count === 1)).toBe(true);
    expect(hits.size).toBe(jobCount);
    expect(entries.map((entry) => entry?.executionData.finalOutput)).toEqual(
      jobs.map((job) => job.body.output),
    );
  }, 120_000);
});
