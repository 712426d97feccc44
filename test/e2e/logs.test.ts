/** The execution log over HTTP: the list and its filters, ascending polling, one entry, what a run executed. */
import { describe, expect, it } from 'vitest';
import { deployedWorkflow, type Tenant, threeBlockGraph } from '../../support/api-client';
import { until } from '../support/wait';
import { useE2eService } from './service';

const service = useE2eService();

/** A deployed workflow with one successful and one failed run; answers their execution ids. */
async function twoRuns(tenant: Tenant) {
  const id = await deployedWorkflow(
    tenant,
    threeBlockGraph({ code: 'if (<start.name> === "x") throw new Error("no x"); return 1;' }),
  );
  const ok = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
  const failed = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'x' });
  return {
    id,
    ok: ok.body.metadata.executionId as string,
    failed: failed.body.metadata.executionId as string,
  };
}

describe('the execution log', () => {
  it('lists the runs newest first with the limits block, and filters them by level', async () => {
    // Prepare
    const tenant = await service.newTenant('logs');
    const runs = await twoRuns(tenant);

    // Act
    const all = await tenant.call('GET', `/api/v1/logs?workspaceId=${tenant.workspaceId}`);
    const errors = await tenant.call('GET', `/api/v1/logs?workspaceId=${tenant.workspaceId}&level=error`);

    // Assess
    expect(all.status).toBe(200);
    expect(all.headers.get('x-ratelimit-remaining')).toEqual(expect.any(String));
    expect(all.body.data.map((entry: { executionId: string }) => entry.executionId)).toEqual([
      runs.failed,
      runs.ok,
    ]);
    expect(all.body.data[1]).toMatchObject({
      id: expect.any(String),
      workflowId: runs.id,
      level: 'info',
      trigger: 'api',
      startedAt: expect.any(String),
      endedAt: expect.any(String),
      totalDurationMs: expect.any(Number),
      cost: { total: expect.any(Number) },
      files: null,
    });
    expect(all.body.nextCursor).toBeUndefined();
    expect(all.body.limits).toMatchObject({
      workflowExecutionRateLimit: { sync: expect.any(Object), async: expect.any(Object) },
      usage: { plan: 'free', isExceeded: false },
    });
    expect(errors.body.data).toEqual([expect.objectContaining({ executionId: runs.failed, level: 'error' })]);
  });

  it('pages with a cursor and finds a new entry by polling in ascending order', async () => {
    // Prepare
    const tenant = await service.newTenant('logs-pages');
    const runs = await twoRuns(tenant);
    const base = `/api/v1/logs?workspaceId=${tenant.workspaceId}`;

    // Act
    const first = await tenant.call('GET', `${base}&limit=1`);
    const second = await tenant.call(
      'GET',
      `${base}&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    const ascending = await until(async () => {
      const page = await tenant.call('GET', `${base}&order=asc&startDate=2020-01-01T00:00:00Z`);
      return page.body.data.length === 2 ? page : undefined;
    });

    // Assess
    expect(first.body.data.map((entry: { executionId: string }) => entry.executionId)).toEqual([runs.failed]);
    expect(second.body.data.map((entry: { executionId: string }) => entry.executionId)).toEqual([runs.ok]);
    expect(ascending.body.data.map((entry: { executionId: string }) => entry.executionId)).toEqual([
      runs.ok,
      runs.failed,
    ]);
    expect(ascending.body.pollCursor).toEqual(expect.any(String));
  });

  it('answers one entry with its trace spans and final output, and the graph the run executed', async () => {
    // Prepare
    const tenant = await service.newTenant('log-entry');
    const runs = await twoRuns(tenant);
    const listed = await tenant.call(
      'GET',
      `/api/v1/logs?workspaceId=${tenant.workspaceId}&executionId=${runs.ok}`,
    );

    // Act
    const entry = await tenant.call('GET', `/api/v1/logs/${listed.body.data[0].id}`);
    const execution = await tenant.call('GET', `/api/v1/logs/executions/${runs.ok}`);

    // Assess
    expect(entry.status).toBe(200);
    expect(entry.body.data).toMatchObject({
      executionId: runs.ok,
      workflow: { id: runs.id, name: 'Flow' },
      executionData: {
        traceSpans: [expect.objectContaining({ type: 'workflow' })],
        finalOutput: { shouted: 1 },
      },
      cost: { total: expect.any(Number), tokens: expect.any(Object), models: {} },
      limits: expect.any(Object),
    });
    expect(execution.status).toBe(200);
    expect(execution.body).toMatchObject({
      executionId: runs.ok,
      workflowId: runs.id,
      workflowState: {
        blocks: { start: expect.any(Object), shout: expect.any(Object) },
        edges: expect.any(Array),
      },
      executionMetadata: { trigger: 'api', totalDurationMs: expect.any(Number) },
    });
  });

  it('refuses limit=0 with 400 naming limit', async () => {
    // Prepare
    const tenant = await service.newTenant('log-limit');

    // Act
    const answer = await tenant.call('GET', `/api/v1/logs?workspaceId=${tenant.workspaceId}&limit=0`);

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details[0].path).toBe('limit');
  });

  it('answers 404 to a stranger for the workspace log, one of its entries and an execution', async () => {
    // Prepare
    const owner = await service.newTenant('log-owner');
    const stranger = await service.newTenant('log-stranger');
    const runs = await twoRuns(owner);
    const listed = await owner.call(
      'GET',
      `/api/v1/logs?workspaceId=${owner.workspaceId}&executionId=${runs.ok}`,
    );

    // Act
    const entry = await stranger.call('GET', `/api/v1/logs/${listed.body.data[0].id}`);
    const execution = await stranger.call('GET', `/api/v1/logs/executions/${runs.ok}`);
    const list = await stranger.call('GET', `/api/v1/logs?workspaceId=${owner.workspaceId}`);

    // Assess
    expect(entry.status).toBe(404);
    expect(execution.status).toBe(404);
    expect(list.status).toBe(404);
  });
});
