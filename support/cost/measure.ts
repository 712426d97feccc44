/**
 * Measures what typical runs use, by running them on the local emulators and counting every billable
 * call they cause (adapters/metering.ts): the request, the functions it invokes, the state
 * machine, every AWS SDK call, and what happens after the answer (the completion event, a webhook
 * delivery). Each workflow runs a few times unmeasured first (caches fill, the sandbox starts),
 * then `runs` times one after the other, each measured until the service has been quiet for a
 * moment.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MeteredEvent, subscribeMetered } from '../../adapters/metering';
import { block, edge, graphOf } from '../../core/engine/builders';
import { exampleWorkflows } from '../../local/seed';
import { startLocalService } from '../../local/service';
import { unreachableRateLimitsJson } from '../limits';
import { startOpenAiServer } from '../model-servers';
import { deployedWorkflow, type Tenant } from '../api-client';
import { makeClient } from '../service-client';
import { addEvent, emptyUsage, type Usage } from './model';

export const workflowNames = [
  'sync 3-block',
  'async 3-block',
  'agent, one model call',
  'sync + webhook',
] as const;
export type WorkflowName = (typeof workflowNames)[number];

/** Quiet for this long after a run: its queued work (completion event, deliveries) is done. */
const quietInMs = 300;
const warmupRuns = 3;

class Meter {
  usage: Usage | undefined;
  private lastEventInMs = performance.now();
  readonly stop: () => void;

  constructor() {
    this.stop = subscribeMetered((event: MeteredEvent) => {
      if (event.kind === 'aws' && event.operation === 'ReceiveMessage' && event.messages === 0) return;
      this.lastEventInMs = performance.now();
      if (this.usage) addEvent(this.usage, event);
    });
  }

  async quiet(timeoutInMs = 20_000): Promise<void> {
    const deadline = performance.now() + timeoutInMs;
    while (performance.now() - this.lastEventInMs < quietInMs) {
      if (performance.now() > deadline) throw new Error('The service did not settle after a run');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

interface Scenario {
  /** One run, as a client makes it; resolves when the client has its answer. */
  run(): Promise<void>;
}

function expectStatus(answer: { status: number; body: unknown }, status: number, what: string): void {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
}

const hello = exampleWorkflows.find((workflow) => workflow.name === 'Hello')!;

async function syncScenario(tenant: Tenant): Promise<Scenario> {
  const workflowId = await deployedWorkflow(tenant, hello.state);
  return {
    async run() {
      expectStatus(
        await tenant.call('POST', `/api/workflows/${workflowId}/execute`, hello.sampleInput),
        200,
        'run',
      );
    },
  };
}

async function asyncScenario(tenant: Tenant, url: string, meter: Meter): Promise<Scenario> {
  const workflowId = await deployedWorkflow(tenant, hello.state);
  return {
    async run() {
      const response = await fetch(`${url}/api/workflows/${workflowId}/execute`, {
        method: 'POST',
        headers: {
          'x-api-key': tenant.apiKey,
          'content-type': 'application/json',
          'x-execution-mode': 'async',
        },
        body: JSON.stringify(hello.sampleInput),
      });
      const accepted = (await response.json()) as { taskId: string };
      expectStatus({ status: response.status, body: accepted }, 202, 'async run');
      // The client reads the result once, when the job is done.
      await meter.quiet();
      const job = await tenant.call('GET', `/api/jobs/${accepted.taskId}`);
      if (job.body?.status !== 'completed') throw new Error(`Job not completed: ${JSON.stringify(job.body)}`);
    },
  };
}

async function agentScenario(tenant: Tenant, modelUrl: string): Promise<Scenario> {
  await tenant.call('PUT', `/api/workspaces/${tenant.workspaceId}/environment/OPENAI_KEY`, {
    value: 'sk-cost',
  });
  const workflowId = await deployedWorkflow(
    tenant,
    graphOf(
      [
        block('start', 'start', 'Start', {
          inputFormat: [{ name: 'topic', type: 'string', required: true }],
        }),
        block('writer', 'agent', 'Writer', {
          provider: 'openai',
          model: 'gpt-4o-mini',
          systemPrompt: 'Be brief.',
          userPrompt: 'Write about <start.topic>',
          apiKey: '{{OPENAI_KEY}}',
          baseUrl: modelUrl,
        }),
        block('respond', 'response', 'Respond', { data: { text: '<writer.content>' } }),
      ],
      [edge('start', 'writer'), edge('writer', 'respond')],
    ),
  );
  return {
    async run() {
      expectStatus(
        await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { topic: 'otters' }),
        200,
        'run',
      );
    },
  };
}

async function webhookScenario(
  tenant: Tenant,
  receiverUrl: string,
  delivered: () => number,
): Promise<Scenario> {
  const subscribed = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
    channel: 'webhook',
    allWorkflows: true,
    levelFilter: ['info', 'error'],
    triggerFilter: ['api'],
    webhook: { url: `${receiverUrl}/runs`, secret: 'whsec_cost-model-secret' },
  });
  expectStatus(subscribed, 201, 'subscription');
  const workflowId = await deployedWorkflow(tenant, hello.state);
  return {
    async run() {
      const before = delivered();
      expectStatus(
        await tenant.call('POST', `/api/workflows/${workflowId}/execute`, hello.sampleInput),
        200,
        'run',
      );
      const deadline = Date.now() + 20_000;
      while (delivered() === before) {
        if (Date.now() > deadline) throw new Error('The webhook was not delivered');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

async function startReceiver(): Promise<{ server: Server; url: string; delivered: () => number }> {
  let count = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count += 1;
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, delivered: () => count };
}

/** What each named workflow uses over `runs` runs (usage.runs = runs). */
export async function measureWorkflows(
  options: { runs?: number; only?: readonly WorkflowName[] } = {},
): Promise<Map<WorkflowName, Usage>> {
  const runs = options.runs ?? 20;
  const names = options.only ?? workflowNames;
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  // Every request still draws its tokens; the limits are only set out of the runs' reach.
  process.env.RATE_LIMITS_JSON = unreachableRateLimitsJson;
  // Each run draws its own token, as runs a second or more apart do: runs one after the other would
  // otherwise take tokens ahead (core/limits/token-leases.ts) and show fewer writes than sparse traffic.
  process.env.RATE_LIMIT_LEASE_TOKENS = '0';
  const receiver = await startReceiver();
  const model = await startOpenAiServer();
  process.env.OUTBOUND_ALLOWLIST = `127.0.0.1:${new URL(receiver.url).port}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-cost-'));
  const service = await startLocalService({ dataDir, port: 0, allowLoopbackOutbound: true });
  const client = makeClient(service);
  const meter = new Meter();
  try {
    const results = new Map<WorkflowName, Usage>();
    for (const name of names) {
      const tenant = await client.newTenant(name.replace(/\W+/g, '-'));
      const scenario =
        name === 'sync 3-block'
          ? await syncScenario(tenant)
          : name === 'async 3-block'
            ? await asyncScenario(tenant, service.url, meter)
            : name === 'agent, one model call'
              ? await agentScenario(tenant, model.url)
              : await webhookScenario(tenant, receiver.url, receiver.delivered);
      for (let index = 0; index < warmupRuns; index++) await scenario.run();
      await meter.quiet();
      const usage = emptyUsage();
      meter.usage = usage;
      for (let index = 0; index < runs; index++) {
        await scenario.run();
        await meter.quiet();
        usage.runs += 1;
      }
      meter.usage = undefined;
      results.set(name, usage);
    }
    return results;
  } finally {
    meter.stop();
    await service.stop();
    await model.close();
    await new Promise((resolve) => receiver.server.close(resolve));
    delete process.env.OUTBOUND_ALLOWLIST;
    await rm(dataDir, { recursive: true, force: true });
  }
}
