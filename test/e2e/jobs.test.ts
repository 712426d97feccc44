/** Cancelling asynchronous runs: a run that is waiting stays cancelled; a finished one cannot be. */
import { describe, expect, it } from 'vitest';
import { deployedWorkflow, finishedJob, waitingGraph } from '../../support/api-client';
import { executeAsync, useE2eService } from './service';

const service = useE2eService();

describe('cancelling a job', () => {
  it('cancels a waiting run: it stays cancelled and writes no log entry', async () => {
    // Prepare
    const tenant = await service.newTenant('cancel');
    const id = await deployedWorkflow(tenant, waitingGraph(3_000));
    const accepted = await executeAsync(service, tenant, id);

    // Act
    const cancelled = await tenant.call('POST', `/api/jobs/${accepted.body.taskId}/cancel`);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const later = await tenant.call('GET', `/api/jobs/${accepted.body.taskId}`);
    const logged = await tenant.call(
      'GET',
      `/api/v1/logs?workspaceId=${tenant.workspaceId}&executionId=${accepted.body.taskId}`,
    );

    // Assess
    expect(accepted.status).toBe(202);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      success: true,
      taskId: accepted.body.taskId,
      status: 'cancelled',
    });
    expect(later.body).toMatchObject({ status: 'cancelled', error: 'Cancelled' });
    expect(logged.body.data).toEqual([]);
  });

  it('answers 409 CONFLICT to the cancel of a finished job', async () => {
    // Prepare
    const tenant = await service.newTenant('cancel-late');
    const id = await deployedWorkflow(tenant);
    const accepted = await executeAsync(service, tenant, id, { name: 'ada' });
    await finishedJob(tenant, accepted.body.taskId);

    // Act
    const answer = await tenant.call('POST', `/api/jobs/${accepted.body.taskId}/cancel`);

    // Assess
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('CONFLICT');
  });
});
