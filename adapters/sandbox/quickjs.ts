/**
 * The function-block sandbox: user code runs in QuickJS compiled to WebAssembly, one fresh runtime
 * per run, with nothing of the host inside but `console`, timers and, when the request brings an
 * HTTP client, a minimal `fetch` whose every call goes through that client (the guard).
 *
 * Memory is bounded twice because the runtime's own limit is unreliable in this build: QuickJS
 * cannot see allocation sizes under Emscripten, so `setMemoryLimit` only rejects single oversized
 * allocations and counts live allocations, not bytes. So (1) the WebAssembly heap of a thread (one
 * per heap size) has a hard maximum (a bomb ends in a clean `out of memory` instead of growing the
 * host to the 2 GB wasm32 ceiling; a pool worker, running one function at a time, sets it to the
 * run's memory cap), and (2) the interrupt handler samples the runtime's real usage and stops a run
 * that exceeds its own limit.
 *
 * Speed: a run costs little more than QuickJS creating the runtime and its context, and with
 * `prepareAhead` (pool workers) even that is done between runs, with timers, `console` and, when the
 * last run had an HTTP client, `fetch` already made. Compiling source inside the sandbox is what
 * costs most, so `console`, `fetch` and the helpers the host needs are host functions and handles
 * taken from the fresh context before user code runs. Besides the user's code, a run compiles only
 * what it turns out to need: a small helper when it logs an object, the full formatter when it logs
 * a wide or unusual one, a describer for an odd thrown value.
 *
 * This file runs one function; module.ts loads the WebAssembly module, sandbox.ts makes and disposes
 * of a run's runtime and context, run-loop.ts drives the code to its end, result.ts reads its result.
 */
import type { QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import type { CodeRunner, CodeRunRequest, CodeRunResult } from '../../core/engine/types';
import { formatStdout } from './console';
import type { FetchLimits } from './fetch';
import { errorMessageOf, plainText, scriptOptions } from './handles';
import { forgetModule, type LoadedModule, loadedModule, loadModule, sandboxHeapInBytes } from './module';
import { resultOf } from './result';
import { settle } from './run-loop';
import { newFetch, newSandbox, release, type Sandbox } from './sandbox';
import { SandboxError } from './sandbox-error';

export { SandboxError, sandboxHeapInBytes };

export interface QuickJsCodeRunnerOptions {
  /** Hard ceiling of the WebAssembly heap shared by every run in this process (default 256 MB). */
  heapLimitInBytes?: number;
  /** Cap of captured console output per run; more is dropped with a marker (default 1 MB). */
  maxStdoutInBytes?: number;
  /** Calls of `fetch` one run may make (default 20). */
  maxFetchesPerRun?: number;
  /** Cap of one `fetch` response body (default 5 MB). */
  maxFetchResponseBytes?: number;
  /**
   * Asked between instructions of user code, like the request's signal: a worker thread's pool
   * cannot reach the signal while user code holds the thread, so it sets shared memory instead.
   */
  interruptRequested?: () => boolean;
  /**
   * Make the next run's runtime and context as soon as a run has answered, and dispose of the
   * finished one then too, so neither is on the next run's path. For a thread that does nothing
   * else (a pool worker); each run still gets a runtime and context of its own.
   */
  prepareAhead?: boolean;
  /** Called when a run's after-work is done (with `prepareAhead`, the next sandbox made): the runner is idle. */
  onIdle?: () => void;
}

const defaultHeapLimitInBytes = 256 * 1024 * 1024;
const defaultMaxStdoutInBytes = 1024 * 1024;
const maxStackSizeInBytes = 256 * 1024;
/** Sampling real memory use walks the heap, so it is throttled; the heap cap covers the gaps. */
const memorySampleIntervalInMs = 10;
const defaultMaxFetchesPerRun = 20;
const defaultMaxFetchResponseBytes = 5 * 1024 * 1024;

/** How a thrown value that is not an error with a string name and message becomes a message; compiled only when needed. */
const describeSource = `(function (error) {
  if (error !== null && typeof error === 'object' && 'message' in error) {
    return String(error.name || 'Error') + ': ' + String(error.message);
  }
  return String(error);
})`;

/** QuickJS words this differently from V8; people compare messages with what Node prints. */
function nodeStyle(message: string): string {
  return message.replace(/^ReferenceError: '(.+)' is not defined$/, 'ReferenceError: $1 is not defined');
}

export function createQuickJsCodeRunner(options: QuickJsCodeRunnerOptions = {}): CodeRunner {
  const heapLimitInBytes = options.heapLimitInBytes ?? defaultHeapLimitInBytes;
  const maxStdoutInBytes = options.maxStdoutInBytes ?? defaultMaxStdoutInBytes;
  const fetchLimits: FetchLimits = {
    maxFetches: options.maxFetchesPerRun ?? defaultMaxFetchesPerRun,
    maxResponseBytes: options.maxFetchResponseBytes ?? defaultMaxFetchResponseBytes,
  };
  let prepared: Sandbox | undefined;
  /** Whether the last run had an HTTP client: the next is likely alike (function blocks have one, conditions not). */
  let lastRunFetches = false;
  const take = (loaded: LoadedModule): Sandbox => {
    const ready = prepared;
    prepared = undefined;
    if (ready?.loaded === loaded) return ready;
    if (ready) release(ready);
    return newSandbox(loaded, maxStdoutInBytes, fetchLimits, false);
  };
  return {
    async run(request: CodeRunRequest): Promise<CodeRunResult> {
      const loading = loadModule(heapLimitInBytes);
      const loaded = loading instanceof Promise ? await loading : loading;
      let sandbox: Sandbox | undefined;
      lastRunFetches = request.http !== undefined;
      try {
        sandbox = take(loaded);
        return await runInRuntime(sandbox, request, loaded.heapIsFull, options.interruptRequested);
      } catch (error) {
        if (error instanceof SandboxError) throw error;
        // Anything else is the WebAssembly module itself failing; the next run gets a fresh one.
        forgetModule(heapLimitInBytes);
        throw new SandboxError(
          `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        const finished = sandbox;
        if (!options.prepareAhead) {
          if (finished) release(finished);
          options.onIdle?.();
        } else {
          // After the answer has gone out: the caller awaits this run's promise, not this work.
          setImmediate(() => {
            if (finished) release(finished);
            const next = loadedModule(heapLimitInBytes);
            if (next && !prepared) {
              try {
                prepared = newSandbox(next, maxStdoutInBytes, fetchLimits, lastRunFetches);
              } catch {
                // The next run makes its own and reports what fails.
              }
            }
            options.onIdle?.();
          });
        }
      }
    },
  };
}

async function runInRuntime(
  { runtime, vm, intrinsics, timers, stdout, json, fetchLimits, fetch, fetches, owned }: Sandbox,
  request: CodeRunRequest,
  heapIsFull: () => boolean,
  interruptRequested: (() => boolean) | undefined,
): Promise<CodeRunResult> {
  const { timeoutInMs, memoryLimitInBytes, signal } = request;
  const startedAt = Date.now();
  const deadline = startedAt + timeoutInMs;
  let stoppedFor: 'timeout' | 'memory' | 'cancelled' | undefined;
  // A run has allocated next to nothing when it starts: the first sample is due one interval in.
  let lastSampleAt = startedAt;

  runtime.setMemoryLimit(memoryLimitInBytes);
  runtime.setMaxStackSize(maxStackSizeInBytes);
  runtime.setInterruptHandler(() => {
    if (stoppedFor) return true;
    if (signal?.aborted || interruptRequested?.()) {
      stoppedFor = 'cancelled';
      return true;
    }
    const now = Date.now();
    if (now >= deadline) {
      stoppedFor = 'timeout';
      return true;
    }
    if (now - lastSampleAt >= memorySampleIntervalInMs) {
      lastSampleAt = now;
      if (memoryInUse(runtime) > memoryLimitInBytes) {
        stoppedFor = 'memory';
        return true;
      }
    }
    return false;
  });

  const stopped = (): SandboxError | undefined => {
    if (!stoppedFor && (signal?.aborted || interruptRequested?.())) stoppedFor = 'cancelled';
    if (stoppedFor === 'cancelled') return new SandboxError('Function was cancelled', 'cancelled');
    if (stoppedFor === 'timeout')
      return new SandboxError(`Function timed out after ${timeoutInMs} ms`, 'timeout');
    if (stoppedFor === 'memory') {
      const megabytes = Math.round(memoryLimitInBytes / (1024 * 1024));
      return new SandboxError(`Function ran out of memory (limit ${megabytes} MB)`, 'memory');
    }
    return undefined;
  };

  try {
    if (request.http) {
      const { handle, run } = fetch ?? newFetch(vm, json, intrinsics, fetches, fetchLimits, owned);
      run.http = request.http;
      run.deadline = deadline;
      run.signal = signal;
      vm.setProp(vm.global, 'fetch', handle);
    }

    let describeFunction: QuickJSHandle | undefined;
    /** `String(error)`, or name and message for an error; undefined when the thrown value cannot be read. */
    const describe = (error: QuickJSHandle): string | undefined => {
      const type = vm.typeof(error);
      if (type === 'object') {
        if (vm.eq(error, vm.null)) return 'null';
        const known = errorMessageOf(vm, error);
        if (known !== undefined) return known;
      } else if (type !== 'function' && type !== 'symbol') {
        return plainText(vm, error, type);
      }
      if (!describeFunction) {
        const compiled = vm.evalCode(describeSource, 'describe.js', scriptOptions);
        if (compiled.error) {
          compiled.error.dispose();
          return undefined;
        }
        describeFunction = compiled.value;
        owned.push(describeFunction);
      }
      const described = vm.callFunction(describeFunction, vm.undefined, error);
      if (described.error) {
        described.error.dispose();
        return undefined;
      }
      const message = vm.getString(described.value);
      described.value.dispose();
      return message;
    };

    const fail = (error: QuickJSHandle): SandboxError => {
      const stop = stopped();
      if (stop) return stop;
      const message = describe(error);
      if (message === undefined) {
        return new SandboxError(stopped()?.message ?? 'Error: the thrown value could not be read');
      }
      if (message === 'InternalError: out of memory' || (message === 'null' && heapIsFull())) {
        return new SandboxError('InternalError: out of memory', 'memory');
      }
      return new SandboxError(nodeStyle(message));
    };

    // The newline before the closing brace keeps a trailing line comment in user code harmless.
    const evaluated = vm.evalCode(`(async () => {\n${request.code}\n})()`, 'function.js', scriptOptions);
    if (evaluated.error) {
      const error = fail(evaluated.error);
      evaluated.error.dispose();
      throw error;
    }
    const promise = evaluated.value;
    owned.push(promise);

    const expire = (): SandboxError => {
      stoppedFor = 'timeout';
      return stopped()!;
    };
    const value = await settle(
      runtime,
      vm,
      promise,
      timers,
      fetches.work,
      deadline,
      fail,
      stopped,
      expire,
      signal,
    );
    try {
      return {
        result: resultOf(vm, value, intrinsics.stringify, fail, request.maxResultBytes),
        stdout: formatStdout(stdout.lines),
      };
    } finally {
      value.dispose();
    }
  } finally {
    // A fetch still under way when the run ends must not touch the context afterwards.
    fetches.closed = true;
    for (const deferred of fetches.deferreds) if (deferred.alive) deferred.dispose();
    for (const timer of timers.values()) timer.callback.dispose();
    for (const handle of owned.reverse()) if (handle.alive) handle.dispose();
  }
}

/** Reads the runtime's real heap use; the figure QuickJS enforces its own limit with is not it. */
function memoryInUse(runtime: QuickJSRuntime): number {
  try {
    const match = /memory used\s+\d+\s+(\d+)/.exec(runtime.dumpMemoryUsage());
    return match ? Number(match[1]) : 0;
  } catch {
    // With the heap full even the report cannot be allocated; QuickJS's own out-of-memory error follows.
    return 0;
  }
}
