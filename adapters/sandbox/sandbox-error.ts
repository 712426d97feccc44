/**
 * Why the sandbox stopped a run. In a module of its own so that the pool, on the main thread, uses it
 * without loading QuickJS, which only the pool's worker threads load (lib/bundling.ts).
 */
export class SandboxError extends Error {
  /** `error`: the code threw; `timeout`, `memory` and `cancelled` (the request's signal): the sandbox stopped it. */
  readonly kind: 'error' | 'timeout' | 'memory' | 'cancelled';

  constructor(message: string, kind: 'error' | 'timeout' | 'memory' | 'cancelled' = 'error') {
    super(message);
    this.name = 'SandboxError';
    this.kind = kind;
  }
}
