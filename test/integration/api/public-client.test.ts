/** The public client of the product this interface describes runs against the local server. */
import { type AsyncExecutionResult, SimStudioClient, SimStudioError } from 'simstudio-ts-sdk';
import { describe, expect, it } from 'vitest';
import { deployedWorkflow, useLocalService } from '../../support/service';

const service = useLocalService();

async function pollUntilFinished(client: SimStudioClient, taskId: string) {
  for (let attempt = 0; attempt < 500; attempt++) {
    const status = await client.getJobStatus(taskId);
    if (!['queued', 'processing'].includes(status.status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Job ${taskId} did not finish`);
}

describe('simstudio-ts-sdk', () => {
  it('runs a workflow asynchronously and polls its job to completed', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);
    const client = new SimStudioClient({ apiKey: tenant.apiKey, baseUrl: service.get().url });

    // Act
    const accepted = (await client.executeWorkflow(
      id,
      { name: 'ada' },
      { async: true },
    )) as AsyncExecutionResult;
    const finished = await pollUntilFinished(client, accepted.taskId);

    // Assess
    expect(accepted).toMatchObject({
      success: true,
      status: 'queued',
      links: { status: `/api/jobs/${accepted.taskId}` },
    });
    expect(finished).toMatchObject({
      success: true,
      taskId: accepted.taskId,
      status: 'completed',
      output: { shouted: 'ADA' },
    });
  });

  it('runs a workflow synchronously and reads its deployment status', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const id = await deployedWorkflow(tenant);
    const client = new SimStudioClient({ apiKey: tenant.apiKey, baseUrl: service.get().url });

    // Act
    const result = await client.executeWorkflow(id, { name: 'ada' });
    const ready = await client.validateWorkflow(id);

    // Assess
    expect(result).toMatchObject({ success: true, output: { shouted: 'ADA' } });
    expect(ready).toBe(true);
  });

  it('raises the service error code and status for an unknown job', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sdk');
    const client = new SimStudioClient({ apiKey: tenant.apiKey, baseUrl: service.get().url });

    // Act
    const reading = client.getJobStatus('no-such-task');

    // Assess
    await expect(reading).rejects.toSatisfy(
      (error: unknown) =>
        error instanceof SimStudioError && error.code === 'NOT_FOUND' && error.status === 404,
    );
  });
});
