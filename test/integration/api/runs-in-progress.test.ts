/**
 * The cap on a workspace's runs in progress, as a client meets it on the local emulators: the run past
 * the cap is refused with 429 naming it, another workspace is not, and a run that ends (or is
 * cancelled) frees its slot.
 */
import { describe, expect, it } from 'vitest';
import {
  deployedWorkflow,
  finishedJob,
  request,
  type Tenant,
  useLocalService,
  waitingGraph,
} from '../../support/service';

// One run at a time on the free plan; the buckets out of reach, so that only the cap refuses.
const unreachable = { requestsPerMinute: 600_000, maxBurst: 100_000 };
const plan = { api: unreachable, sync: unreachable, async: unreachable };
process.env.RATE_LIMITS_JSON = JSON.stringify({
  free: { ...plan, runsInProgress: 1 },
  pro: { ...plan, runsInProgress: 2 },
});

const service = useLocalService();

/** An asynchronous execution: its run holds a slot from its admission until Finalize. */
const executeAsync = (tenant: Tenant, workflowId: string) =>
  request(service.get().url, 'POST', `/api/workflows/${workflowId}/execute`, {
    headers: { 'x-api-key': tenant.apiKey, 'x-execution-mode': 'async' },
    body: {},
  });

describe('runs in progress per workspace', () => {
  it('refuses a run past the cap with 429 naming it, runs another workspace, and admits again once the run ends', async () => {
    // Prepare
    const tenant = await service.get().newTenant('capped');
    const other = await service.get().newTenant('neighbour');
    const slow = await deployedWorkflow(tenant, waitingGraph(1_500));
    const quick = await deployedWorkflow(tenant);
    const neighbours = await deployedWorkflow(other);
    const first = await executeAsync(tenant, slow);
    expect(first.status).toBe(202);

    // Act
    const refused = await tenant.call('POST', `/api/workflows/${quick}/execute`, { name: 'Ada' });
    const refusedByHand = await tenant.call('POST', `/api/workflows/${quick}/run`, {
      input: { name: 'Ada' },
    });
    const elsewhere = await other.call('POST', `/api/workflows/${neighbours}/execute`, { name: 'Ada' });
    const ended = await finishedJob(tenant, first.body.taskId);
    const afterwards = await tenant.call('POST', `/api/workflows/${quick}/execute`, { name: 'Ada' });

    // Assess
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: expect.stringContaining('this workspace has 1 runs in progress, the cap of the free plan'),
      code: 'CONCURRENCY_LIMIT_EXCEEDED',
    });
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('600000');
    expect(refusedByHand.status).toBe(429);
    expect(elsewhere.status).toBe(200);
    expect(ended.body.status).toBe('completed');
    expect(afterwards.status).toBe(200);
  });

  it('keeps no base charge of a refused run', async () => {
    // Prepare
    const tenant = await service.get().newTenant('uncharged');
    const slow = await deployedWorkflow(tenant, waitingGraph(1_500));
    const first = await executeAsync(tenant, slow);
    const before = await tenant.call('GET', '/api/users/me/usage-limits');

    // Act
    const refused = await executeAsync(tenant, slow);
    const after = await tenant.call('GET', '/api/users/me/usage-limits');
    await finishedJob(tenant, first.body.taskId);

    // Assess
    expect(refused.status).toBe(429);
    expect(after.body.usage.currentPeriodCost).toBe(before.body.usage.currentPeriodCost);
  });

  it("frees a cancelled run's slot, which no Finalize gives back", async () => {
    // Prepare
    const tenant = await service.get().newTenant('cancelling');
    const slow = await deployedWorkflow(tenant, waitingGraph(60_000));
    const quick = await deployedWorkflow(tenant);
    const first = await executeAsync(tenant, slow);
    const refused = await tenant.call('POST', `/api/workflows/${quick}/execute`, { name: 'Ada' });

    // Act
    const cancelled = await tenant.call('POST', `/api/jobs/${first.body.taskId}/cancel`);
    const afterwards = await tenant.call('POST', `/api/workflows/${quick}/execute`, { name: 'Ada' });

    // Assess
    expect(refused.status).toBe(429);
    expect(cancelled.status).toBe(200);
    expect(afterwards.status).toBe(200);
  });

  it('applies the cap of the plan of whoever starts the run: two on pro', async () => {
    // Prepare
    const tenant = await service.get().newTenant('pro', { plan: 'pro' });
    const slow = await deployedWorkflow(tenant, waitingGraph(1_500));
    const runs = [await executeAsync(tenant, slow), await executeAsync(tenant, slow)];

    // Act
    const third = await executeAsync(tenant, slow);
    for (const run of runs) await finishedJob(tenant, run.body.taskId);

    // Assess
    expect(runs.map((run) => run.status)).toEqual([202, 202]);
    expect(third.status).toBe(429);
    expect(third.body.error).toContain('2 runs in progress, the cap of the pro plan');
  });
});
