/**
 * The client library (sdk/src) against the compiled server: sync, async with the job's status,
 * streamed runs, a file input, workflow status and usage limits, rate-limit info, and the errors
 * it raises for a failed run and a wrong key.
 */
import { describe, expect, it } from 'vitest';
import { fileInput, type StreamEvent, WorkflowClient, WorkflowClientError } from '../../sdk/src/index';
import {
  deployedWorkflow,
  draftWorkflow,
  fileEchoGraph,
  type Tenant,
  threeBlockGraph,
} from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();

const clientOf = (tenant: Tenant) => new WorkflowClient({ apiKey: tenant.apiKey, baseUrl: service.url });

async function raised(call: Promise<unknown>): Promise<WorkflowClientError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof WorkflowClientError))
    throw new Error(`Expected a WorkflowClientError, got ${error}`);
  return error;
}

describe('the client library', () => {
  it('runs a workflow and answers its result, logged, with the rate-limit info of the answer', async () => {
    // Prepare
    const tenant = await service.newTenant('sdk-sync');
    const id = await deployedWorkflow(tenant);
    const client = clientOf(tenant);

    // Act
    const result = await client.execute(id, { input: { name: 'ada' } });
    const logged = await tenant.call(
      'GET',
      `/api/v1/logs?workspaceId=${tenant.workspaceId}&executionId=${result.metadata?.executionId}`,
    );

    // Assess
    expect(result).toMatchObject({ success: true, output: { shouted: 'ADA' } });
    expect(logged.body.data).toEqual([
      expect.objectContaining({ workflowId: id, trigger: 'api', level: 'info' }),
    ]);
    expect(client.getRateLimitInfo()).toMatchObject({
      limit: expect.any(Number),
      remaining: expect.any(Number),
      reset: expect.any(Number),
    });
  });

  it('queues a run and waits for its job to complete', async () => {
    // Prepare
    const tenant = await service.newTenant('sdk-async');
    const id = await deployedWorkflow(tenant);
    const client = clientOf(tenant);

    // Act
    const queued = await client.execute(id, { name: 'ada' }, { async: true });
    const finished = await client.waitForJob(queued.taskId, { pollIntervalInMs: 50, timeoutInMs: 20_000 });
    const status = await client.getJobStatus(queued.taskId);

    // Assess
    expect(queued).toMatchObject({
      success: true,
      status: 'queued',
      links: { status: `/api/jobs/${queued.taskId}` },
    });
    expect(finished).toMatchObject({ status: 'completed', output: { shouted: 'ADA' } });
    expect(status.status).toBe('completed');
  });

  it('streams the selected outputs, the done event and the end', async () => {
    // Prepare
    const tenant = await service.newTenant('sdk-stream');
    const id = await deployedWorkflow(tenant);

    // Act
    const stream = await clientOf(tenant).stream(id, { name: 'ada' }, { selectedOutputs: ['Shout.result'] });
    const events: StreamEvent[] = [];
    for await (const event of stream) events.push(event);

    // Assess
    expect(events).toEqual([
      { event: 'chunk', blockId: 'shout', chunk: 'ADA' },
      {
        event: 'done',
        success: true,
        output: { shouted: 'ADA' },
        metadata: { duration: expect.any(Number) },
      },
      { event: 'end' },
    ]);
    expect(stream.executionId).toEqual(expect.any(String));
  });

  it('sends a file input that the run stores and answers with a URL of the same bytes', async () => {
    // Prepare
    const tenant = await service.newTenant('sdk-file');
    const id = await deployedWorkflow(tenant, fileEchoGraph());
    const file = await fileInput(Buffer.from('a,b\n1,2\n'), { name: 'table.csv', mime: 'text/csv' });

    // Act
    const result = await clientOf(tenant).execute(id, { input: { docs: [file] } });
    const [stored] = (result.output as { docs: { name: string; url: string }[] }).docs;
    const download = await fetch(stored.url);

    // Assess
    expect(stored).toMatchObject({ name: 'table.csv', type: 'text/csv', size: 8 });
    expect(await download.text()).toBe('a,b\n1,2\n');
  });

  it('tells a deployed workflow from one that is not, and reads the usage limits', async () => {
    // Prepare
    const tenant = await service.newTenant('sdk-status');
    const deployed = await deployedWorkflow(tenant);
    const draft = await draftWorkflow(tenant);
    const client = clientOf(tenant);

    // Act
    const status = await client.getWorkflowStatus(deployed);
    const ready = await client.validateWorkflow(deployed);
    const notReady = await client.validateWorkflow(draft);
    const limits = await client.getUsageLimits();

    // Assess
    expect(status).toMatchObject({ isDeployed: true, needsRedeployment: false });
    expect(ready).toBe(true);
    expect(notReady).toBe(false);
    expect(limits).toMatchObject({ success: true, usage: { plan: 'free' }, rateLimit: { authType: 'api' } });
  });

  it('raises EXECUTION_ERROR with the result for a failed run, and UNAUTHORIZED for a wrong key', async () => {
    // Prepare
    const tenant = await service.newTenant('sdk-errors');
    const id = await deployedWorkflow(tenant, threeBlockGraph({ code: 'throw new Error("boom");' }));
    const stranger = new WorkflowClient({ apiKey: 'svc_not-a-key', baseUrl: service.url });

    // Act
    const failed = await raised(clientOf(tenant).execute(id, { input: { name: 'ada' } }));
    const refused = await raised(stranger.execute(id, { input: { name: 'ada' } }));

    // Assess
    expect(failed).toMatchObject({ name: 'WorkflowClientError', code: 'EXECUTION_ERROR', status: 500 });
    expect(failed.message).toContain('boom');
    expect(refused).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});
