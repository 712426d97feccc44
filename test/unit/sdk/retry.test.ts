/** executeWithRetry's waits, on a fake clock: backoff, its cap, ± 25 % jitter, Retry-After first. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FetchLike, retryDefaults, WorkflowClient } from '../../../sdk/src/index';

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** A fetch that gives the answers in turn and notes the fake time of each request. */
function scripted(answers: Answer[]) {
  const times: number[] = [];
  const fetch: FetchLike = async () => {
    times.push(Date.now());
    const answer = answers.shift();
    if (!answer) throw new Error('More requests than scripted');
    return {
      status: answer.status,
      statusText: '',
      headers: { get: (name: string) => answer.headers?.[name.toLowerCase()] ?? null },
      body: null,
      text: async () => JSON.stringify(answer.body),
    };
  };
  return { fetch, times, waits: () => times.slice(1).map((time, index) => time - times[index]) };
}

const refused = (headers: Record<string, string> = {}): Answer => ({
  status: 429,
  body: { error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED' },
  headers,
});
const served: Answer = { status: 200, body: { success: true, output: { ok: true } } };

async function run(fetch: FetchLike, retryOptions = {}) {
  const client = new WorkflowClient({ apiKey: 'key', baseUrl: 'http://127.0.0.1:3000', fetch });
  const outcome = client.executeWithRetry('wf_1', {}, {}, retryOptions).catch((error: unknown) => error);
  await vi.runAllTimersAsync();
  return outcome;
}

describe('executeWithRetry', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2026-11-25T00:00:00.000Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('has the interface defaults', () => {
    expect(retryDefaults).toEqual({
      maxRetries: 3,
      initialDelay: 1_000,
      maxDelay: 30_000,
      backoffMultiplier: 2,
    });
  });

  it('backs off exponentially from initialDelay, at the low end of the jitter when random is 0', async () => {
    // Prepare
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { fetch, waits } = scripted([refused(), refused(), refused(), served]);

    // Act
    const result = await run(fetch);

    // Assess: 1 s, 2 s, 4 s, each × 0.75
    expect(result).toMatchObject({ success: true });
    expect(waits()).toEqual([750, 1_500, 3_000]);
  });

  it('waits at most maxDelay, also at the high end of the jitter', async () => {
    // Prepare
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const { fetch, waits } = scripted([refused(), refused(), refused(), served]);

    // Act
    await run(fetch, { initialDelay: 1_000, maxDelay: 2_000, backoffMultiplier: 3 });

    // Assess: 1 s × 1.25, then 3 s and 9 s capped at 2 s
    expect(waits()).toEqual([1_250, 2_000, 2_000]);
  });

  it('takes Retry-After (seconds or an HTTP date) over its own backoff', async () => {
    // Prepare
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const inNineSeconds = new Date(Date.now() + 7_000 + 9_000).toUTCString();
    const { fetch, waits } = scripted([
      refused({ 'retry-after': '7' }),
      refused({ 'retry-after': inNineSeconds }),
      served,
    ]);

    // Act
    await run(fetch, { initialDelay: 10 });

    // Assess
    expect(waits()).toEqual([7_000, 9_000]);
  });

  it('raises the last 429 after maxRetries retries', async () => {
    // Prepare
    const { fetch, times } = scripted([refused(), refused(), refused()]);

    // Act
    const error = await run(fetch, { maxRetries: 2 });

    // Assess
    expect(error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(times).toHaveLength(3);
  });

  it('does not retry other errors (a run is never sent twice unless refused)', async () => {
    // Prepare
    const { fetch, times } = scripted([
      { status: 500, body: { success: false, error: 'boom', code: 'EXECUTION_ERROR' } },
    ]);

    // Act
    const error = await run(fetch);

    // Assess
    expect(error).toMatchObject({ code: 'EXECUTION_ERROR', status: 500, message: 'boom' });
    expect(times).toHaveLength(1);
  });
});
