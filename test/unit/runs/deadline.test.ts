import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TimeoutError } from '../../../core/errors';
import { syncAnswerGraceInMs, withinSyncDeadline } from '../../../core/runs/deadline';

const startedAt = '2026-11-22T12:00:00.000Z';

describe('withinSyncDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse(startedAt) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers with the run when it ends before the deadline', async () => {
    // Prepare
    const run = new Promise((resolve) => setTimeout(() => resolve('done'), 2_000));

    // Act
    const answering = withinSyncDeadline(run, startedAt, 3_000);
    await vi.advanceTimersByTimeAsync(2_000);

    // Assess
    await expect(answering).resolves.toBe('done');
  });

  it('answers 408 TIMEOUT at the budget plus the grace, while the run goes on', async () => {
    // Prepare
    let finished = false;
    const run = new Promise((resolve) =>
      setTimeout(() => {
        finished = true;
        resolve('late');
      }, 60_000),
    );

    // Act
    const answering = withinSyncDeadline(run, startedAt, 3_000);
    const outcome = answering.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(3_000 + syncAnswerGraceInMs - 1);
    const settledEarly = await Promise.race([outcome.then(() => true), Promise.resolve(false)]);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;

    // Assess
    expect(settledEarly).toBe(false);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).statusCode).toBe(408);
    expect((error as TimeoutError).message).toContain('3 s');
    expect(finished).toBe(false);
  });

  it('counts from the run start, not from the call', async () => {
    // Prepare: the request spent 2.5 s before the run was started
    vi.setSystemTime(Date.parse(startedAt) + 2_500);
    const run = new Promise(() => undefined);

    // Act
    const outcome = withinSyncDeadline(run, startedAt, 3_000).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(500 + syncAnswerGraceInMs);

    // Assess
    expect(await outcome).toBeInstanceOf(TimeoutError);
  });
});
