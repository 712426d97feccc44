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
 * `prepareAhead` (pool workers) even that is done between runs, with timers and `console` already
 * installed. Compiling
 * source inside the sandbox is what costs most, so `console`, `fetch` and the helpers the host needs
 * are host functions and handles taken from the fresh context before user code runs. Besides the
 * user's code, a run compiles only what it turns out to need: a small helper when it logs an object,
 * the full formatter when it logs a wide or unusual one, a describer for an odd thrown value.
 */
import variantModule from '@jitl/quickjs-singlefile-cjs-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { formatBytes } from '../../core/engine/json-size';
import type { CodeRunner, CodeRunRequest, CodeRunResult } from '../../core/engine/types';
import { formatStdout, installConsole } from './console';
import { type FetchLimits, type FetchRun, type HostFetches, newSandboxFetch } from './fetch';
import { errorMessageOf, type Intrinsics, plainText, scriptOptions } from './handles';
import { SandboxError } from './sandbox-error';
import { installTimers, type Timer } from './timers';

export { SandboxError };

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
}

const defaultHeapLimitInBytes = 256 * 1024 * 1024;
const defaultMaxStdoutInBytes = 1024 * 1024;
const maxStackSizeInBytes = 256 * 1024;
const wasmPageInBytes = 64 * 1024;
const initialHeapInBytes = 16 * 1024 * 1024;
/** Sampling real memory use walks the heap, so it is throttled; the heap cap covers the gaps. */
const memorySampleIntervalInMs = 10;
const defaultMaxFetchesPerRun = 20;
const defaultMaxFetchResponseBytes = 5 * 1024 * 1024;

/** The package is CommonJS; depending on the loader its default export arrives wrapped once more. */
const baseVariant: QuickJSSyncVariant =
  (variantModule as unknown as { default?: QuickJSSyncVariant }).default ?? variantModule;

/** The lib settings of this project leave out the WebAssembly globals; only the memory constructor is needed. */
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer } };
};

interface LoadedModule {
  module: QuickJSWASMModule;
  /** How large the WebAssembly heap has grown; it never shrinks. */
  heapInBytes: () => number;
  /** True when the heap has grown to its ceiling: QuickJS then throws `null` for lack of room for an error. */
  heapIsFull: () => boolean;
}

const modules = new Map<number, Promise<LoadedModule>>();
/** The same modules once loaded, so that a run does not wait a turn for a promise that settled long ago. */
const loadedModules = new Map<number, LoadedModule>();

/** Compiling the module costs tens of milliseconds, so it is done once per process and heap size. */
function loadModule(heapLimitInBytes: number): LoadedModule | Promise<LoadedModule> {
  const ready = loadedModules.get(heapLimitInBytes);
  if (ready) return ready;
  let loaded = modules.get(heapLimitInBytes);
  if (!loaded) {
    const maximum = Math.max(1, Math.floor(heapLimitInBytes / wasmPageInBytes));
    const wasmMemory = new wasm.Memory({
      initial: Math.min(maximum, initialHeapInBytes / wasmPageInBytes),
      maximum,
    });
    const heapIsFull = () => wasmMemory.buffer.byteLength + wasmPageInBytes > maximum * wasmPageInBytes;
    const loading = newQuickJSWASMModuleFromVariant(newVariant(baseVariant, { wasmMemory })).then(
      (module) => ({
        module,
        heapInBytes: () => wasmMemory.buffer.byteLength,
        heapIsFull,
      }),
    );
    loading.then(
      (module) => {
        if (modules.get(heapLimitInBytes) === loading) loadedModules.set(heapLimitInBytes, module);
      },
      // A failed load must not poison the cache for the rest of the process.
      () => {
        if (modules.get(heapLimitInBytes) === loading) forgetModule(heapLimitInBytes);
      },
    );
    modules.set(heapLimitInBytes, loading);
    loaded = loading;
  }
  return loaded;
}

/** The WebAssembly heaps of this thread's sandboxes, in bytes: what a worker thread gives back when it ends. */
export function sandboxHeapInBytes(): number {
  let total = 0;
  for (const loaded of loadedModules.values()) total += loaded.heapInBytes();
  return total;
}

function forgetModule(heapLimitInBytes: number): void {
  modules.delete(heapLimitInBytes);
  loadedModules.delete(heapLimitInBytes);
}

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
        } else {
          // After the answer has gone out: the caller awaits this run's promise, not this work.
          setImmediate(() => {
            if (finished) release(finished);
            const next = loadedModules.get(heapLimitInBytes);
            if (next && !prepared) {
              try {
                prepared = newSandbox(next, maxStdoutInBytes, fetchLimits, lastRunFetches);
              } catch {
                // The next run makes its own and reports what fails.
              }
            }
          });
        }
      }
    },
  };
}

/** A runtime and its one context: what each run gets fresh. */
interface Sandbox {
  loaded: LoadedModule;
  runtime: QuickJSRuntime;
  vm: QuickJSContext;
  intrinsics: Intrinsics;
  timers: Map<number, Timer>;
  stdout: Stdout;
  /** Taken before user code runs; `json` also serves `fetch`. */
  json: QuickJSHandle;
  fetchLimits: FetchLimits;
  /** Installed as the global `fetch` only for a run that brings an HTTP client; made ahead when one likely will. */
  fetch?: SandboxFetch;
  fetches: HostFetches;
  /** Handles the run must dispose of before the context. */
  owned: QuickJSHandle[];
}

/** What `console` wrote in a run, capped. */
interface Stdout {
  lines: string[];
  bytes: number;
  truncated: boolean;
}

/** The sandbox's `fetch` function and the run it serves, which the run fills in when it starts. */
interface SandboxFetch {
  handle: QuickJSHandle;
  run: FetchRun;
}

/** Stands in for a run's HTTP client until the run sets it; never called, as `fetch` is not installed until then. */
const noHttp: FetchRun['http'] = {
  request: () => Promise.reject(new Error('fetch is not available')),
};

function newFetch(
  vm: QuickJSContext,
  json: QuickJSHandle,
  intrinsics: Intrinsics,
  fetches: HostFetches,
  fetchLimits: FetchLimits,
  owned: QuickJSHandle[],
): SandboxFetch {
  const reflect = vm.getProp(vm.global, 'Reflect');
  owned.push(reflect);
  const fetchIntrinsics = {
    ...intrinsics,
    parse: vm.getProp(json, 'parse'),
    reflectGet: vm.getProp(reflect, 'get'),
  };
  owned.push(fetchIntrinsics.parse, fetchIntrinsics.reflectGet);
  const run: FetchRun = { http: noHttp, deadline: 0, signal: undefined };
  const handle = newSandboxFetch(vm, run, fetches, fetchLimits, fetchIntrinsics, owned);
  owned.push(handle);
  return { handle, run };
}

/**
 * A runtime and context with the globals every run has (timers, `console`), ready for user code,
 * and, `withFetch`, the `fetch` a run with an HTTP client gets, so that a prepared sandbox has it ready.
 */
function newSandbox(
  loaded: LoadedModule,
  maxStdoutInBytes: number,
  fetchLimits: FetchLimits,
  withFetch: boolean,
): Sandbox {
  const runtime = loaded.module.newRuntime();
  let vm: QuickJSContext | undefined;
  try {
    vm = runtime.newContext();
    const owned: QuickJSHandle[] = [];
    const json = vm.getProp(vm.global, 'JSON');
    owned.push(json);
    const objectConstructor = vm.getProp(vm.global, 'Object');
    owned.push(objectConstructor);
    const intrinsics: Intrinsics = {
      stringify: vm.getProp(json, 'stringify'),
      freeze: vm.getProp(objectConstructor, 'freeze'),
    };
    owned.push(intrinsics.stringify, intrinsics.freeze);
    const stdout: Stdout = { lines: [], bytes: 0, truncated: false };
    const write = (line: string) => {
      stdout.bytes += Buffer.byteLength(line) + 1;
      if (stdout.bytes > maxStdoutInBytes) {
        stdout.truncated = true;
        stdout.lines.push('[output truncated]');
        return;
      }
      stdout.lines.push(line);
    };
    const timers = new Map<number, Timer>();
    // In the order the globals have always been created: code may list them.
    installTimers(vm, timers);
    installConsole(vm, intrinsics, owned, write, () => stdout.truncated);
    const fetches: HostFetches = { deferreds: new Set(), work: new Set(), closed: false };
    const fetch = withFetch ? newFetch(vm, json, intrinsics, fetches, fetchLimits, owned) : undefined;
    return { loaded, runtime, vm, intrinsics, timers, stdout, json, fetchLimits, fetch, fetches, owned };
  } catch (error) {
    vm?.dispose();
    runtime.dispose();
    throw error;
  }
}

function release(sandbox: Sandbox): void {
  try {
    // A context cannot be disposed of while handles into it live (a prepared sandbox never ran).
    for (const timer of sandbox.timers.values()) if (timer.callback.alive) timer.callback.dispose();
    for (const handle of sandbox.owned) if (handle.alive) handle.dispose();
    sandbox.vm.dispose();
    sandbox.runtime.dispose();
  } catch {
    // A module that failed may not be able to free; it has been dropped from the cache.
  }
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

/**
 * The result as JSON would carry it. Numbers, booleans, `undefined` and `null` are read directly;
 * everything else goes through the sandbox's own `JSON.stringify` (strings too: the host's string
 * reader stops at a NUL character).
 */
function resultOf(
  vm: QuickJSContext,
  value: QuickJSHandle,
  stringify: QuickJSHandle,
  fail: (error: QuickJSHandle) => SandboxError,
  maxResultBytes = Number.POSITIVE_INFINITY,
): unknown {
  switch (vm.typeof(value)) {
    case 'undefined':
    case 'symbol':
      return undefined;
    case 'number': {
      const number = vm.getNumber(value);
      if (!Number.isFinite(number)) return null;
      // JSON has no negative zero.
      return number === 0 ? 0 : number;
    }
    case 'boolean':
      return vm.getNumber(value) !== 0;
    case 'object':
      if (vm.eq(value, vm.null)) return null;
      break;
    case 'string': {
      // Checked before reading: a huge string would be copied once more.
      const characters = lengthOf(vm, value);
      checkResultLength(characters, maxResultBytes);
      const text = vm.getString(value);
      // The host's reader stops at a NUL character and turns what is not well-formed text into
      // U+FFFD: a string it did not read whole goes through JSON, which carries every string as is.
      if (text.length === characters && !text.includes('\uFFFD')) return text;
      break;
    }
  }
  const json = vm.callFunction(stringify, vm.undefined, value);
  if (json.error) {
    const error = fail(json.error);
    json.error.dispose();
    throw new SandboxError(`Function result is not JSON-serializable: ${error.message}`, error.kind);
  }
  let text: string | undefined;
  try {
    if (vm.typeof(json.value) === 'string') {
      if (Number.isFinite(maxResultBytes)) checkResultLength(lengthOf(vm, json.value), maxResultBytes);
      text = vm.getString(json.value);
    }
  } finally {
    json.value.dispose();
  }
  return text === undefined ? undefined : JSON.parse(text);
}

/** Fails a result whose text is over the cap while it is still inside the sandbox, not copied out. */
function checkResultLength(characters: number, maxResultBytes: number): void {
  if (characters > maxResultBytes) {
    throw new SandboxError(
      `Function result is larger than ${formatBytes(maxResultBytes)}, the limit of one block's output`,
    );
  }
}

/** The `length` of a string in the sandbox, in UTF-16 code units, read without copying the string. */
function lengthOf(vm: QuickJSContext, text: QuickJSHandle): number {
  const length = vm.getProp(text, 'length');
  const characters = vm.getNumber(length);
  length.dispose();
  return characters;
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

/**
 * Drives the promise of the user's async function to completion: runs pending jobs, fires due
 * timers, and waits on the host only while a timer or a host call (`fetch`) can still change the outcome.
 */
async function settle(
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
