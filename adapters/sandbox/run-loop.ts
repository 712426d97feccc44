/** A run's loop: drives the user's async function to its end between the sandbox and the host. */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { SandboxError } from './sandbox-error';
import type { Timer } from './timers';

/**
 * Drives the promise of the user's async function to completion: runs pending jobs, fires due
 * timers, and waits on the host only while a timer or a host call (`fetch`) can still change the outcome.
 */
export async function settle(
  runtime: QuickJSRuntime,
  vm: QuickJSContext,
  promise: QuickJSHandle,
  timers: Map<number, Timer>,
  hostWork: Set<Promise<void>>,
  deadline: number,
  fail: (error: QuickJSHandle) => SandboxError,
  stopped: () => SandboxError | undefined,
  expire: () => SandboxError,
  signal: AbortSignal | undefined,
): Promise<QuickJSHandle> {
  for (;;) {
    if (runtime.hasPendingJob()) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) {
        const error = fail(jobs.error);
        jobs.error.dispose();
        throw error;
      }
    }
    const state = vm.getPromiseState(promise);
    if (state.type === 'fulfilled') return state.value;
    if (state.type === 'rejected') {
      const error = fail(state.error);
      state.error.dispose();
      throw error;
    }
    const stop = stopped();
    if (stop) throw stop;
    const now = Date.now();
    if (now >= deadline) throw expire();

    let next: Timer | undefined;
    for (const timer of timers.values()) if (!next || timer.dueAt < next.dueAt) next = timer;
    if (next && next.dueAt <= now) {
      timers.delete(next.id);
      const called = vm.callFunction(next.callback, vm.undefined);
      next.callback.dispose();
      if (called.error) {
        const error = fail(called.error);
        called.error.dispose();
        throw error;
      }
      called.value.dispose();
      continue;
    }
    if (!next && hostWork.size === 0) {
      // No job, timer or host call is left that could settle it: waiting for the deadline would change nothing.
      throw new SandboxError('Function never finished: it awaits a promise that nothing settles');
    }
    await wakeUp(Math.min(next?.dueAt ?? deadline, deadline) - now, hostWork, signal);
  }
}

/** Resolves after `delayInMs`, as soon as one of the host calls finishes, or when the run is cancelled. */
function wakeUp(
  delayInMs: number,
  hostWork: Set<Promise<void>>,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, delayInMs));
    for (const work of hostWork) work.then(done, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
