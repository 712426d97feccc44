/** The metrics route over HTTP: the counters kept as runs end match the runs made. */
import { describe, expect, it } from 'vitest';
import { block, edge, graphOf } from '../../core/engine/builders';
import { deployedWorkflow } from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();

/** start(ms, fail) → wait(ms) → function (throws when asked) → respond: a run of a chosen length and outcome. */
const chosenRunGraph = graphOf(
  [
    block('start', 'start', 'Start', {
      inputFormat: [
        { name: 'ms', type: 'number', required: true },
        { name: 'fail', type: 'boolean', required: true },
      ],
    }),
    block('pause', 'wait', 'Pause', { durationMs: '<start.ms>' }),
    block('check', 'function', 'Check', {
      code: 'if (<start.fail>) throw new Error("asked to fail"); return 1;',
    }),
    block('respond', 'response', 'Respond', { data: { ok: '<check.result>' } }),
  ],
  [edge('start', 'pause'), edge('pause', 'check'), edge('check', 'respond')],
);

interface Point {
  start: string;
  runs: number;
  errors: number;
  p50Ms: number | null;
  p95Ms: number | null;
  costUsd: number;
}

describe('the metrics route', () => {
  it('counts the runs made, their errors and durations, and names the workflow that fails', async () => {
    // Prepare: 5 quick runs (2 of them failing) and one of 600 ms
    const tenant = await service.newTenant('metrics');
    const failing = await deployedWorkflow(tenant, chosenRunGraph);
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const runs = [
      { ms: 0, fail: false },
      { ms: 0, fail: true },
      { ms: 0, fail: false },
      { ms: 0, fail: true },
      { ms: 0, fail: false },
      { ms: 600, fail: false },
    ];
    for (const input of runs) await tenant.call('POST', `/api/workflows/${failing}/execute`, input);
    const to = new Date(Date.now() + 3_600_000).toISOString();

    // Act
    const answer = await tenant.call(
      'GET',
      `/api/v1/metrics?workspaceId=${tenant.workspaceId}&from=${from}&to=${to}&bucket=hour`,
    );

    // Assess
    expect(answer.status).toBe(200);
    const points = answer.body.data as Point[];
    const counted = points.filter((point) => point.runs > 0);
    expect(points.length).toBeGreaterThanOrEqual(2);
    expect(counted.reduce((sum, point) => sum + point.runs, 0)).toBe(6);
    expect(counted.reduce((sum, point) => sum + point.errors, 0)).toBe(2);
    // The slow run is the 95th percentile of its hour; the quick ones are the median of theirs.
    expect(Math.max(...counted.map((point) => point.p95Ms as number))).toBeGreaterThanOrEqual(600 * 0.91);
    expect(Math.min(...counted.map((point) => point.p50Ms as number))).toBeLessThan(600 * 0.91);
    expect(counted.every((point) => point.costUsd >= 0)).toBe(true);
    expect(answer.body.topFailingWorkflows).toEqual([{ workflowId: failing, runs: 6, errors: 2 }]);
  });

  it('refuses an unknown bucket with a 400 naming it, and answers a non-member 404', async () => {
    // Prepare
    const tenant = await service.newTenant('metrics-refusals');
    const stranger = await service.newTenant('metrics-stranger');

    // Act
    const badBucket = await tenant.call(
      'GET',
      `/api/v1/metrics?workspaceId=${tenant.workspaceId}&bucket=week`,
    );
    const foreign = await stranger.call('GET', `/api/v1/metrics?workspaceId=${tenant.workspaceId}`);

    // Assess
    expect(badBucket.status).toBe(400);
    expect(badBucket.body.details).toEqual([expect.objectContaining({ path: 'bucket' })]);
    expect(foreign.status).toBe(404);
  });
});
