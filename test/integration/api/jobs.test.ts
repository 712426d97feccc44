import { describe, expect, it } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import {
  deployedWorkflow,
  finishedJob,
  request,
  type Tenant,
  threeBlockGraph,
  useLocalService,
  waitingGraph,
} from '../../support/service';

const service = useLocalService();

/** An async execute of the workflow as the tenant. */
function executeAsync(tenant: Tenant, workflowId: string, body?: unknown) {
  return request(service.get().url, 'POST', `/api/workflows/${workflowId}/execute`, {
    headers: { 'x-api-key': tenant.apiKey, 'X-Execution-Mode': 'async' },
    body,
  });
}

describe('asynchronous execution', () => {
  it('answers 202 with the asynchronous execution result and a status link', async () => {
    // Prepare
    const tenant = await service.get().newTenant('async');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await executeAsync(tenant, id, { name: 'ada' });

    // Assess
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      success: true,
      taskId: expect.any(String),
      status: 'queued',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      links: { status: `/api/jobs/${answer.body.taskId}` },
    });
  });

  it('runs the job to completed with its output, timing and one log entry', async () => {
    // Prepare
    const tenant = await service.get().newTenant('async');
    const id = await deployedWorkflow(tenant);
    const accepted = await executeAsync(tenant, id, { name: 'ada' });

    // Act
    const job = await finishedJob(tenant, accepted.body.taskId);

    // Assess
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({
      success: true,
      taskId: accepted.body.taskId,
      status: 'completed',
      output: { shouted: 'ADA' },
    });
    expect(job.body.estimatedDuration).toBeUndefined();
    const { startedAt, completedAt, duration } = job.body.metadata;
    expect(Date.parse(completedAt) - Date.parse(startedAt)).toBe(duration);
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(accepted.body.taskId);
    expect(entry).toMatchObject({ workflowId: id, trigger: 'api', level: 'info' });
  });

  it('settles a failed run as failed with its error; success says the status request succeeded', async () => {
    // Prepare
    const tenant = await service.get().newTenant('async');
    const id = await deployedWorkflow(tenant, threeBlockGraph({ code: "throw new Error('no luck');" }));
    const accepted = await executeAsync(tenant, id, { name: 'ada' });

    // Act
    const job = await finishedJob(tenant, accepted.body.taskId);

    // Assess
    expect(job.body).toMatchObject({
      success: true,
      status: 'failed',
      error: expect.stringContaining('no luck'),
    });
    expect(job.body.output).toBeUndefined();
  });

  it('validates the request like a sync one before accepting it', async () => {
    // Prepare
    const tenant = await service.get().newTenant('async');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await executeAsync(tenant, id, {});

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.error).toContain('name');
  });

  it('estimates the duration of a queued or processing job from recent runs', async () => {
    // Prepare
    const tenant = await service.get().newTenant('async');
    const id = await deployedWorkflow(tenant, waitingGraph(1_500));
    const first = await executeAsync(tenant, id);
    await finishedJob(tenant, first.body.taskId);

    // Act
    const second = await executeAsync(tenant, id);
    const status = await tenant.call('GET', `/api/jobs/${second.body.taskId}`);

    // Assess
    expect(['queued', 'processing']).toContain(status.body.status);
    expect(status.body.estimatedDuration).toBeGreaterThanOrEqual(1_000);
  });

  it("answers 404 for another user's job and for an unknown one", async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const stranger = await service.get().newTenant('stranger');
    const id = await deployedWorkflow(owner);
    const accepted = await executeAsync(owner, id, { name: 'ada' });

    // Act
    const foreign = await stranger.call('GET', `/api/jobs/${accepted.body.taskId}`);
    const foreignCancel = await stranger.call('POST', `/api/jobs/${accepted.body.taskId}/cancel`);
    const unknown = await owner.call('GET', '/api/jobs/no-such-task');

    // Assess
    expect(foreign.status).toBe(404);
    expect(foreignCancel.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });
});

describe('cancelling a job', () => {
  it('cancels a processing run: it stays cancelled and never completes', async () => {
    // Prepare
    const tenant = await service.get().newTenant('cancel');
    const id = await deployedWorkflow(tenant, waitingGraph(1_500));
    const accepted = await executeAsync(tenant, id);

    // Act
    const cancelled = await tenant.call('POST', `/api/jobs/${accepted.body.taskId}/cancel`);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const later = await tenant.call('GET', `/api/jobs/${accepted.body.taskId}`);

    // Assess
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ success: true, status: 'cancelled' });
    expect(later.body.status).toBe('cancelled');
    expect(
      await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(accepted.body.taskId),
    ).toBeUndefined();
  });

  it('answers 409 to the cancel of a finished job', async () => {
    // Prepare
    const tenant = await service.get().newTenant('cancel');
    const id = await deployedWorkflow(tenant);
    const accepted = await executeAsync(tenant, id, { name: 'ada' });
    await finishedJob(tenant, accepted.body.taskId);

    // Act
    const answer = await tenant.call('POST', `/api/jobs/${accepted.body.taskId}/cancel`);

    // Assess
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('CONFLICT');
  });
});
