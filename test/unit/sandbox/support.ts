import { expect } from 'vitest';
import { createQuickJsCodeRunner, SandboxError } from '../../../adapters/sandbox/quickjs';
import type { CodeRunRequest } from '../../../core/engine/types';

/** One runner per test file, as one per process in production. */
export const runner = createQuickJsCodeRunner();

export function request(code: string, overrides: Partial<CodeRunRequest> = {}): CodeRunRequest {
  return { code, timeoutInMs: 2_000, memoryLimitInBytes: 64 * 1024 * 1024, ...overrides };
}

/** The SandboxError a run ended with; fails the test if the run succeeded. */
export async function failureOf(promise: Promise<unknown>): Promise<SandboxError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxError);
    return error as SandboxError;
  }
  throw new Error('the code did not fail');
}
