/**
 * The client library against the local service, over the runtime's fetch and over the `node:http`
 * fallback (what Node 16 uses): every operation, its errors, and the names of the public client.
 */
import { describe, expect, it } from 'vitest';
import {
  type FetchLike,
  nodeHttpFetch,
  SimStudioClient,
  SimStudioError,
  WorkflowClient,
  WorkflowClientError,
} from '../../sdk/src/index';
import {
  deployedWorkflow,
  draftWorkflow,
  type Tenant,
  threeBlockGraph,
  useLocalService,
  waitingGraph,
} from '../support/service';

const service = useLocalService();

/** The error a promise is rejected with (fails the test when it resolves). */
async function errorOf(promise: Promise<unknown>): Promise<WorkflowClientError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`Expected an error, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(WorkflowClientError);
  return outcome.error as WorkflowClientError;
}

/** The runtime's fetch, noting the body of each request it sends. */
function recordingFetch(): { fetch: FetchLike; bodies: unknown[] } {
  const bodies: unknown[] = [];
  const fetch: FetchLike = (url, init) => {
    bodies.push(init?.body === undefined ? undefined : JSON.parse(String(init.body)));
    return globalThis.fetch(url, init as RequestInit) as ReturnType<FetchLike>;
  };
  return { fetch, bodies };
}

describe("WorkflowClient.execute's options, as the interface's client takes them", () => {
  it('sends the input of execute(id, {input, timeout}) as the body, and neither input nor timeout as fields', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);
    const { fetch, bodies } = recordingFetch();
    const client = new WorkflowClient({ apiKey: tenant.apiKey, baseUrl: service.get().url, fetch });

    // Act
    const result = await client.execute(id, { input: { name: 'ada' }, timeout: 10_000 });
    const streamed = await (
      await client.execute(id, { input: { name: 'bo' }, stream: true, selectedOutputs: ['Shout.result'] })
    ).result();

    // Assess
    expect(result.output).toEqual({ shouted: 'ADA' });
    expect(streamed.chunks).toEqual([{ blockId: 'shout', chunk: 'BO' }]);
    expect(bodies).toEqual([
      { name: 'ada' },
      { name: 'bo', stream: true, selectedOutputs: ['Shout.result'] },
    ]);
  });

  it('refuses an input passed where the options go, naming its members, and sends nothing', async () => {
    // Prepare
    const { fetch, bodies } = recordingFetch();
    const client = new WorkflowClient({ apiKey: 'svc_unused', baseUrl: service.get().url, fetch });

    // Act
    const error = await errorOf(client.execute('wf_any', { name: 'ada', timeout: 5 } as never));

    // Assess
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('not name');
    expect(error.message).toContain('{input: {...}}');
    expect(bodies).toEqual([]);
  });

  it('keeps the positional form execute(id, input, options), which takes no input among its options', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);
    const client = new WorkflowClient({ apiKey: tenant.apiKey, baseUrl: service.get().url });

    // Act
    const result = await client.execute(id, { name: 'ada' }, { timeout: 10_000 });
    const mixed = await errorOf(client.execute(id, { name: 'ada' }, { input: {} } as never));

    // Assess
    expect(result.output).toEqual({ shouted: 'ADA' });
    expect(mixed.code).toBe('VALIDATION_ERROR');
  });
});

const transports: Array<[string, FetchLike | undefined]> = [
  ['the runtime fetch', undefined],
  ['the node:http fallback', nodeHttpFetch],
];

describe.each(transports)('WorkflowClient over %s', (_name, fetch) => {
  const clientOf = (tenant: Tenant) =>
    new WorkflowClient({ apiKey: tenant.apiKey, baseUrl: `${service.get().url}/`, fetch });

  it('executes a workflow synchronously and answers its result', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);

    // Act
    const result = await clientOf(tenant).execute(id, { input: { name: 'ada' } });

    // Assess
    expect(result).toMatchObject({
      success: true,
      output: { shouted: 'ADA' },
      metadata: { duration: expect.any(Number), executionId: expect.any(String) },
    });
  });

  it('queues an asynchronous run and polls its job to completed', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);
    const client = clientOf(tenant);

    // Act
    const accepted = await client.execute(id, { name: 'ada' }, { async: true });
    const first = await client.getJobStatus(accepted.taskId);
    const finished = await client.waitForJob(accepted.taskId, { pollIntervalInMs: 20 });

    // Assess
    expect(accepted).toEqual({
      success: true,
      taskId: expect.any(String),
      status: 'queued',
      createdAt: expect.any(String),
      links: { status: `/api/jobs/${accepted.taskId}` },
    });
    expect(first.taskId).toBe(accepted.taskId);
    expect(['queued', 'processing', 'completed']).toContain(first.status);
    expect(finished).toMatchObject({
      success: true,
      taskId: accepted.taskId,
      status: 'completed',
      output: { shouted: 'ADA' },
      metadata: { startedAt: expect.any(String), completedAt: expect.any(String) },
    });
  });

  it('answers a failed asynchronous run as a failed job, and cancels a waiting one', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const failing = await deployedWorkflow(tenant, threeBlockGraph({ code: "throw new Error('no luck');" }));
    const waiting = await deployedWorkflow(tenant, waitingGraph(60_000));
    const client = clientOf(tenant);
    const failed = await client.execute(failing, { name: 'ada' }, { async: true });
    const long = await client.execute(waiting, {}, { async: true });

    // Act
    const failedJob = await client.waitForJob(failed.taskId, { pollIntervalInMs: 20 });
    const cancelled = await client.cancelJob(long.taskId);

    // Assess
    expect(failedJob).toMatchObject({
      success: true,
      status: 'failed',
      error: expect.stringContaining('no luck'),
    });
    expect(cancelled).toMatchObject({ taskId: long.taskId, status: 'cancelled' });
    expect((await client.getJobStatus(long.taskId)).status).toBe('cancelled');
  });

  it('gives up waiting for a job after timeoutInMs with TIMEOUT', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant, waitingGraph(60_000));
    const client = clientOf(tenant);
    const accepted = await client.execute(id, {}, { async: true });

    // Act
    const error = await errorOf(
      client.waitForJob(accepted.taskId, { pollIntervalInMs: 20, timeoutInMs: 200 }),
    );

    // Assess
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain(accepted.taskId);
    await client.cancelJob(accepted.taskId);
  });

  it('reads the workflow status and whether the workflow is ready', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const deployed = await deployedWorkflow(tenant);
    const draft = await draftWorkflow(tenant);
    const client = clientOf(tenant);

    // Act
    const status = await client.getWorkflowStatus(deployed);
    const draftStatus = await client.getWorkflowStatus(draft);
    const ready = [
      await client.validateWorkflow(deployed),
      await client.validateWorkflow(draft),
      await client.validateWorkflow('wf_missing'),
    ];

    // Assess
    expect(status).toEqual({ isDeployed: true, deployedAt: expect.any(String), needsRedeployment: false });
    expect(draftStatus).toMatchObject({ isDeployed: false, needsRedeployment: false });
    expect(ready).toEqual([true, false, false]);
  });

  it('reads the usage limits, and the rate-limit headers of the last answer', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);
    const client = clientOf(tenant);
    const before = client.getRateLimitInfo();

    // Act
    await client.execute(id, { input: { name: 'ada' } });
    const afterExecute = client.getRateLimitInfo();
    const limits = await client.getUsageLimits();
    const afterLimits = client.getRateLimitInfo();

    // Assess
    expect(before).toBeNull();
    expect(limits).toMatchObject({
      success: true,
      rateLimit: {
        sync: { isLimited: false, limit: expect.any(Number), remaining: expect.any(Number) },
        async: { isLimited: false, limit: expect.any(Number) },
        authType: 'api',
      },
      usage: { currentPeriodCost: expect.any(Number), limit: expect.any(Number), plan: 'free' },
    });
    expect(afterExecute).toMatchObject({ limit: 1_000_000, remaining: expect.any(Number) });
    expect(afterExecute?.resetAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(afterExecute?.reset).toBe(Date.parse(afterExecute?.resetAt ?? ''));
    expect(afterLimits?.resetAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('raises UNAUTHORIZED with a wrong key, and works once setApiKey gives the right one', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);
    const client = new WorkflowClient({ apiKey: 'wrong-key', baseUrl: service.get().url, fetch });

    // Act
    const error = await errorOf(client.execute(id, { input: { name: 'ada' } }));
    client.setApiKey(tenant.apiKey);
    const result = await client.execute(id, { input: { name: 'ada' } });

    // Assess
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(result.output).toEqual({ shouted: 'ADA' });
  });

  it('calls the address setBaseUrl gives', async () => {
    // Prepare: a client pointed at a closed port first
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);
    const client = new WorkflowClient({ apiKey: tenant.apiKey, baseUrl: 'http://127.0.0.1:9', fetch });

    // Act
    const error = await errorOf(client.getWorkflowStatus(id));
    client.setBaseUrl(service.get().url);
    const status = await client.getWorkflowStatus(id);

    // Assess
    expect(error.code).toBe('NETWORK_ERROR');
    expect(error.status).toBeUndefined();
    expect(status.isDeployed).toBe(true);
  });

  it('raises the service code and status: a failed run, bad input, an unknown job, an undeployed workflow', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const failing = await deployedWorkflow(tenant, threeBlockGraph({ code: "throw new Error('no luck');" }));
    const fine = await deployedWorkflow(tenant);
    const draft = await draftWorkflow(tenant);
    const client = clientOf(tenant);

    // Act
    const failed = await errorOf(client.execute(failing, { input: { name: 'ada' } }));
    const invalid = await errorOf(client.execute(fine, {}));
    const unknownJob = await errorOf(client.getJobStatus('no-such-task'));
    const undeployed = await errorOf(client.execute(draft, { input: { name: 'ada' } }));

    // Assess
    expect(failed).toMatchObject({ code: 'EXECUTION_ERROR', status: 500 });
    expect(failed.message).toContain('no luck');
    expect(failed.result).toMatchObject({ success: false, error: expect.stringContaining('no luck') });
    expect(invalid).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(invalid.details).toEqual([expect.objectContaining({ path: 'name' })]);
    expect(unknownJob).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(undeployed.status).toBe(403);
  });

  it('times out a call that takes longer than its timeout, with TIMEOUT', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant, waitingGraph(2_000));
    const client = clientOf(tenant);

    // Act
    const error = await errorOf(client.execute(id, {}, { timeout: 200 }));

    // Assess
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('200 ms');
  });
});

describe('the names of simstudio-ts-sdk', () => {
  it('work as they do there: executeWorkflow, executeWorkflowSync, SimStudioError', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);
    const client = new SimStudioClient({ apiKey: tenant.apiKey, baseUrl: service.get().url });

    // Act
    const sync = await client.executeWorkflowSync(id, { name: 'ada' });
    const accepted = await client.executeWorkflow(id, { name: 'ada' }, { async: true });
    const streamed = await client.executeWorkflow(id, { name: 'ada' }, { stream: true });
    const error = await client.getJobStatus('no-such-task').catch((caught: unknown) => caught);

    // Assess
    expect(sync).toMatchObject({ success: true, output: { shouted: 'ADA' } });
    expect(accepted).toMatchObject({ success: true, status: 'queued', taskId: expect.any(String) });
    expect(streamed).toMatchObject({ success: true, output: { shouted: 'ADA' } });
    expect(error).toBeInstanceOf(SimStudioError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
