import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../../core/errors';
import type { Principal } from '../../../core/identity/service';
import { readMetrics } from '../../../core/metrics/service';
import { fakeClock } from '../../support/clock';
import { MemoryMetrics } from './memory-metrics';

const principal = { user: { id: 'usr_1' }, apiKeyId: 'key_1' } as Principal;
/** usr_1 reads ws_1 and is no member of anything else. */
const identity = {
  getWorkspaceMembership: async (workspaceId: string, userId: string) =>
    workspaceId === 'ws_1' && userId === 'usr_1'
      ? { workspaceId, userId, permissions: 'read' as const }
      : undefined,
  getWorkspace: async () => undefined,
  getOrganizationMembership: async () => undefined,
};

/** 2026-11-28T14:30:00Z on a clock that moves only when told. */
const clockAt = () => fakeClock(Date.parse('2026-11-28T14:30:00.000Z'));

function setup() {
  const clock = clockAt();
  const metrics = new MemoryMetrics();
  const deps = { identity, metrics, now: () => new Date(clock.nowInMs()) };
  /** A run of `workflowId` that ends now and lasted `durationInMs`. */
  const endRun = (workflowId: string, durationInMs: number, failed = false, costInUsd = 0.01) =>
    metrics.recordRun({
      workspaceId: 'ws_1',
      workflowId,
      endedAt: new Date(clock.nowInMs()).toISOString(),
      failed,
      durationInMs,
      costInUsd,
    });
  return { clock, metrics, deps, endRun };
}

describe('readMetrics by hour', () => {
  it('answers the last 24 hours by default: 25 hour points, the runs in the hour they ended', async () => {
    // Prepare
    const { clock, deps, endRun } = setup();
    clock.advance(-3 * 3_600_000); // 11:30
    await endRun('wf_a', 100);
    await endRun('wf_a', 300, true);
    clock.advance(3 * 3_600_000 + 20 * 60_000); // 14:50
    await endRun('wf_b', 2_000);

    // Act
    const answer = await readMetrics(deps, principal, { workspaceId: 'ws_1', bucket: 'hour' });

    // Assess
    expect(answer.from).toBe('2026-11-27T14:50:00.000Z');
    expect(answer.to).toBe('2026-11-28T14:50:00.000Z');
    expect(answer.data).toHaveLength(25);
    expect(answer.data[0]?.start).toBe('2026-11-27T14:00:00.000Z');
    const byStart = Object.fromEntries(answer.data.map((point) => [point.start, point]));
    expect(byStart['2026-11-28T11:00:00.000Z']).toMatchObject({
      runs: 2,
      errors: 1,
      meanMs: 200,
      costUsd: 0.02,
    });
    expect(byStart['2026-11-28T14:00:00.000Z']).toMatchObject({ runs: 1, errors: 0, meanMs: 2_000 });
    expect(byStart['2026-11-28T13:00:00.000Z']).toEqual({
      start: '2026-11-28T13:00:00.000Z',
      runs: 0,
      errors: 0,
      p50Ms: null,
      p95Ms: null,
      meanMs: null,
      costUsd: 0,
    });
  });

  it('estimates p50 and p95 within 9 % of the exact nearest-rank values', async () => {
    // Prepare: 20 runs of 100 ms and 1 of 10 s, then the 95th is still 100 ms; 5 more of 10 s move it
    const { deps, endRun } = setup();
    for (let index = 0; index < 20; index++) await endRun('wf_a', 100);
    for (let index = 0; index < 6; index++) await endRun('wf_a', 10_000);

    // Act
    const answer = await readMetrics(deps, principal, {
      workspaceId: 'ws_1',
      from: '2026-11-28T14:00:00.000Z',
      to: '2026-11-28T15:00:00.000Z',
      bucket: 'hour',
    });

    // Assess
    const [point] = answer.data;
    expect(answer.data).toHaveLength(1);
    expect(point?.runs).toBe(26);
    expect(Math.abs((point?.p50Ms as number) - 100)).toBeLessThanOrEqual(9);
    expect(Math.abs((point?.p95Ms as number) - 10_000)).toBeLessThanOrEqual(900);
  });

  it('lists the workflows with errors, most errors first, at most 10', async () => {
    // Prepare
    const { deps, endRun } = setup();
    for (let workflow = 0; workflow < 12; workflow++)
      for (let run = 0; run <= workflow; run++) await endRun(`wf_${workflow}`, 50, run % 2 === 0);
    await endRun('wf_clean', 50);

    // Act
    const answer = await readMetrics(deps, principal, { workspaceId: 'ws_1', bucket: 'hour' });

    // Assess
    expect(answer.topFailingWorkflows).toHaveLength(10);
    expect(answer.topFailingWorkflows[0]).toEqual({ workflowId: 'wf_11', runs: 12, errors: 6 });
    expect(answer.topFailingWorkflows[1]).toEqual({ workflowId: 'wf_10', runs: 11, errors: 6 });
    expect(answer.topFailingWorkflows.map((workflow) => workflow.workflowId)).not.toContain('wf_clean');
  });
});

describe('readMetrics by day', () => {
  it('sums the hours of each UTC day and reads the whole days the range touches once', async () => {
    // Prepare
    const { clock, metrics, deps, endRun } = setup();
    await endRun('wf_a', 100); // 28th 14:30
    clock.advance(-14 * 3_600_000); // 28th 00:30
    await endRun('wf_a', 100, true);
    clock.advance(-3_600_000); // 27th 23:30
    await endRun('wf_a', 100);
    clock.advance(15 * 3_600_000); // 28th 14:30 again

    // Act
    const answer = await readMetrics(deps, principal, { workspaceId: 'ws_1', bucket: 'day' });

    // Assess
    expect(answer.data).toHaveLength(31);
    expect(answer.data.at(-1)).toMatchObject({ start: '2026-11-28T00:00:00.000Z', runs: 2, errors: 1 });
    expect(answer.data.at(-2)).toMatchObject({ start: '2026-11-27T00:00:00.000Z', runs: 1, errors: 0 });
    expect(metrics.reads).toEqual([
      { workspaceId: 'ws_1', fromHour: '2026-10-29T00:00:00.000Z', toHour: '2026-11-29T00:00:00.000Z' },
    ]);
  });
});

describe('readMetrics refusals', () => {
  it.each([
    {
      what: "a range past the bucket's most",
      range: { from: '2026-10-01T00:00:00.000Z', to: '2026-11-28T00:00:00.000Z', bucket: 'day' as const },
      named: 'from',
    },
    {
      what: 'a to that is not after from',
      range: { from: '2026-11-28T10:00:00.000Z', to: '2026-11-28T10:00:00.000Z', bucket: 'hour' as const },
      named: 'to',
    },
  ])('refuses $what with a 400 naming $named', async ({ range, named }) => {
    // Prepare
    const { deps, metrics } = setup();

    // Act
    const refusal = readMetrics(deps, principal, { workspaceId: 'ws_1', ...range });

    // Assess
    await expect(refusal).rejects.toBeInstanceOf(ValidationError);
    await expect(refusal).rejects.toMatchObject({ statusCode: 400, details: [{ path: named }] });
    expect(metrics.reads).toEqual([]);
  });

  it('answers 404 for a workspace the caller is no member of, reading no counters', async () => {
    // Prepare
    const { deps, metrics } = setup();

    // Act
    const refusal = readMetrics(deps, principal, { workspaceId: 'ws_other', bucket: 'hour' });

    // Assess
    await expect(refusal).rejects.toBeInstanceOf(NotFoundError);
    expect(metrics.reads).toEqual([]);
  });
});
