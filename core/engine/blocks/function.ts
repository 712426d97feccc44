import { limitsOf } from '../limits';
import type { EngineDeps } from '../types';
import type { BlockDefinition } from './types';

export const defaultFunctionTimeoutInMs = 10_000;
/** The ceiling of `timeoutMs` unless the deployment sets another (never beyond a step's budget). */
export const defaultFunctionMaxTimeoutInMs = 60_000;
export const defaultFunctionMemoryLimitInBytes = 64 * 1024 * 1024;

/** The time limit a block asks for in `timeoutMs`, else the deployment's default; never above the ceiling. */
export function functionTimeoutInMs(configured: unknown, deps: EngineDeps): number {
  const ceiling = deps.functionMaxTimeoutInMs ?? defaultFunctionMaxTimeoutInMs;
  const fallback = Math.min(deps.functionTimeoutInMs ?? defaultFunctionTimeoutInMs, ceiling);
  const asked = typeof configured === 'string' && configured.trim() !== '' ? Number(configured) : configured;
  if (typeof asked !== 'number' || !Number.isFinite(asked) || asked <= 0) return fallback;
  return Math.min(Math.ceil(asked), ceiling);
}

export function functionMemoryLimitInBytes(deps: EngineDeps): number {
  return deps.functionMemoryLimitInBytes ?? defaultFunctionMemoryLimitInBytes;
}

/** Runs the block's code in the sandbox; references in the code arrive as JSON literals. */
export const functionBlock: BlockDefinition = {
  type: 'function',
  resolveInputs: (block, resolve) => {
    const { code, timeoutMs } = block.config;
    const inputs: Record<string, unknown> = { code: typeof code === 'string' ? resolve.code(code) : '' };
    if (timeoutMs !== undefined) inputs.timeoutMs = resolve.value(timeoutMs);
    return inputs;
  },
  async execute(inputs, { deps, signal, context }) {
    const { result, stdout } = await deps.codeRunner.run({
      workspaceId: context.workspaceId,
      code: String(inputs.code),
      timeoutInMs: functionTimeoutInMs(inputs.timeoutMs, deps),
      memoryLimitInBytes: functionMemoryLimitInBytes(deps),
      maxResultBytes: limitsOf(deps.limits).maxBlockOutputBytes,
      signal,
      // With an HTTP client the sandbox offers `fetch`, every call through it (the guard).
      http: deps.http,
    });
    return { output: { result, stdout } };
  },
};
