import { describe, expect, it, vi } from 'vitest';
import { isServiceError, ValidationError } from '../../../core/errors';

/**
 * A function whose streamed runs are a second bundle (stream-run.js) holds two copies of
 * core/errors.ts: an error thrown by one copy's class reaches the other copy's error handler.
 */
async function validationErrorOfAnotherCopy(): Promise<Error> {
  vi.resetModules();
  const copy = await import('../../../core/errors');
  return new copy.ValidationError('selectedOutputs: "Nobody.result" names no block of this workflow');
}

describe('isServiceError', () => {
  it('knows a service error made by another copy of the errors module', async () => {
    // Prepare
    const foreign = await validationErrorOfAnotherCopy();

    // Act
    const known = isServiceError(foreign);

    // Assess
    expect(foreign instanceof ValidationError).toBe(false);
    expect(known).toBe(true);
  });

  it('does not take a plain error for one', () => {
    expect(isServiceError(new Error('boom'))).toBe(false);
    expect(isServiceError({ statusCode: 400, code: 'VALIDATION_ERROR' })).toBe(false);
  });
});
