import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerWithin, overLambdaResponseLimit } from '../../../local/server';

const answer = (body: string): APIGatewayProxyResult => ({ statusCode: 200, headers: {}, body });

describe('answerWithin', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives up at API Gateway's 29 s integration timeout on a route that has not answered", async () => {
    // Prepare
    vi.useFakeTimers();
    const never = new Promise<APIGatewayProxyResult>(() => undefined);

    // Act
    const outcome = answerWithin(never, 29_000);
    await vi.advanceTimersByTimeAsync(29_000);

    // Assess
    await expect(outcome).resolves.toBe('timed out');
  });

  it('answers what the route answers within the timeout, and drops a later failure', async () => {
    // Prepare
    vi.useFakeTimers();
    const quick = new Promise<APIGatewayProxyResult>((resolve) =>
      setTimeout(() => resolve(answer('ok')), 28_999),
    );
    const late = new Promise<APIGatewayProxyResult>((_, reject) =>
      setTimeout(() => reject(new Error('too late')), 40_000),
    );

    // Act
    const answered = answerWithin(quick, 29_000);
    const timedOut = answerWithin(late, 29_000);
    await vi.advanceTimersByTimeAsync(40_000);

    // Assess
    await expect(answered).resolves.toEqual(answer('ok'));
    await expect(timedOut).resolves.toBe('timed out');
  });
});

describe('overLambdaResponseLimit', () => {
  it("names Lambda's 6,291,556-byte response limit for an answer over it", () => {
    // Act
    const refusal = overLambdaResponseLimit(answer('x'.repeat(6_291_556)));

    // Assess
    expect(refusal).toContain("Lambda's limit of 6,291,556 bytes");
  });

  it('lets an answer of 6,000,000 bytes through', () => {
    // Act
    const refusal = overLambdaResponseLimit(answer('x'.repeat(6_000_000)));

    // Assess
    expect(refusal).toBeUndefined();
  });
});
