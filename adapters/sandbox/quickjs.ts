/**
 * The function-block sandbox: user code runs in QuickJS compiled to WebAssembly, one fresh runtime
 * per run, with nothing of the host inside but `console` and timers.
 *
 * Memory is bounded twice because the runtime's own limit is unreliable in this build: QuickJS
 * cannot see allocation sizes under Emscripten, so `setMemoryLimit` only rejects single oversized
 * allocations and counts live allocations, not bytes. So (1) the WebAssembly heap shared by all runs
 * of a process has a hard maximum (a bomb ends in a clean `out of memory` instead of growing the host
 * to the 2 GB wasm32 ceiling), and (2) the interrupt handler samples the runtime's real usage and
 * stops a run that exceeds its own limit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
import type { CodeRunner, CodeRunRequest, CodeRunResult } from '../../core/engine/types';

export class SandboxError extends Error {
  /** `error`: the code threw; `timeout` and `memory`: the sandbox stopped it. */
  readonly kind: 'error' | 'timeout' | 'memory';

  constructor(message: string, kind: 'error' | 'timeout' | 'memory' = 'error') {
    super(message);
    this.name = 'SandboxError';
    this.kind = kind;
  }
}

export interface QuickJsCodeRunnerOptions {
  /** Hard ceiling of the WebAssembly heap shared by every run in this process (default 256 MB). */
  heapLimitInBytes?: number;
  /** Cap of captured console output per run; more is dropped with a marker (default 1 MB). */
  maxStdoutInBytes?: number;
}

const defaultHeapLimitInBytes = 256 * 1024 * 1024;
const defaultMaxStdoutInBytes = 1024 * 1024;
const maxStackSizeInBytes = 256 * 1024;
const wasmPageInBytes = 64 * 1024;
const initialHeapInBytes = 16 * 1024 * 1024;
/** Sampling real memory use walks the heap, so it is throttled; the heap cap covers the gaps. */
const memorySampleIntervalInMs = 10;
const maxPendingTimers = 1000;

/** The package is CommonJS; depending on the loader its default export arrives wrapped once more. */
const baseVariant: QuickJSSyncVariant =
  (variantModule as unknown as { default?: QuickJSSyncVariant }).default ?? variantModule;

/** The lib settings of this project leave out the WebAssembly globals; only the memory constructor is needed. */
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer } };
};

interface LoadedModule {
  module: QuickJSWASMModule;
  /** True when the heap has grown to its ceiling: QuickJS then throws `null` for lack of room for an error. */
  heapIsFull: () => boolean;
}

const modules = new Map<number, Promise<LoadedModule>>();

/** Compiling the module costs tens of milliseconds, so it is done once per process and heap size. */
function loadModule(heapLimitInBytes: number): Promise<LoadedModule> {
  let loaded = modules.get(heapLimitInBytes);
  if (!loaded) {
    const maximum = Math.max(1, Math.floor(heapLimitInBytes / wasmPageInBytes));
    const wasmMemory = new wasm.Memory({
      initial: Math.min(maximum, initialHeapInBytes / wasmPageInBytes),
      maximum,
    });
    const heapIsFull = () => wasmMemory.buffer.byteLength + wasmPageInBytes > maximum * wasmPageInBytes;
    loaded = newQuickJSWASMModuleFromVariant(newVariant(baseVariant, { wasmMemory })).then((module) => ({
      module,
      heapIsFull,
    }));
    // A failed load must not poison the cache for the rest of the process.
    loaded.catch(() => modules.delete(heapLimitInBytes));
    modules.set(heapLimitInBytes, loaded);
  }
  return loaded;
}

/**
 * Runs inside the sandbox before user code. It installs `console` and returns the helpers the host
 * needs later, captured now so that user code replacing `JSON` or `String` cannot affect them.
 */
const prelude = `(function (write) {
  const stringify = JSON.stringify;
  const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  function quote(text) {
    return "'" + text.replace(/\\\\/g, '\\\\\\\\').replace(/'/g, "\\\\'").replace(/\\n/g, '\\\\n') + "'";
  }
  function inspect(value, depth, seen) {
    switch (typeof value) {
      case 'string': return depth === 0 ? value : quote(value);
      case 'bigint': return String(value) + 'n';
      case 'symbol': return value.toString();
      case 'function': return '[Function: ' + (value.name || '(anonymous)') + ']';
      case 'object': break;
      default: return String(value);
    }
    if (value === null) return 'null';
    if (seen.includes(value)) return '[Circular]';
    if (value instanceof Error) return value.stack ? value.name + ': ' + value.message + '\\n' + value.stack.trimEnd() : value.name + ': ' + value.message;
    if (value instanceof Date) return isNaN(value) ? 'Invalid Date' : value.toISOString();
    if (value instanceof RegExp) return String(value);
    const isArray = Array.isArray(value);
    if (depth > 2) return isArray ? '[Array]' : '[Object]';
    const inner = seen.concat([value]);
    const parts = isArray
      ? value.map((item) => inspect(item, depth + 1, inner))
      : Object.keys(value).map((key) => (identifier.test(key) ? key : quote(key)) + ': ' + inspect(value[key], depth + 1, inner));
    if (parts.length === 0) return isArray ? '[]' : '{}';
    return isArray ? '[ ' + parts.join(', ') + ' ]' : '{ ' + parts.join(', ') + ' }';
  }
  function line() {
    const parts = [];
    for (let i = 0; i < arguments.length; i++) parts.push(inspect(arguments[i], 0, []));
    write(parts.join(' '));
  }
  globalThis.console = Object.freeze({ log: line, info: line, warn: line, error: line, debug: line });
  return {
    toJson(value) { return value === undefined ? undefined : stringify(value); },
    describe(error) {
      if (error !== null && typeof error === 'object' && 'message' in error) {
        return String(error.name || 'Error') + ': ' + String(error.message);
      }
      return String(error);
    },
  };
})`;

interface Timer {
  id: number;
  dueAt: number;
  callback: QuickJSHandle;
}

/** QuickJS words this differently from V8; people compare messages with what Node prints. */
function nodeStyle(message: string): string {
  return message.replace(/^ReferenceError: '(.+)' is not defined$/, 'ReferenceError: $1 is not defined');
}

export function createQuickJsCodeRunner(options: QuickJsCodeRunnerOptions = {}): CodeRunner {
  const heapLimitInBytes = options.heapLimitInBytes ?? defaultHeapLimitInBytes;
  const maxStdoutInBytes = options.maxStdoutInBytes ?? defaultMaxStdoutInBytes;
  return {
    async run(request: CodeRunRequest): Promise<CodeRunResult> {
      const { module, heapIsFull } = await loadModule(heapLimitInBytes);
      let runtime: QuickJSRuntime | undefined;
      try {
        runtime = module.newRuntime();
        return await runInRuntime(runtime, request, maxStdoutInBytes, heapIsFull);
      } catch (error) {
        if (error instanceof SandboxError) throw error;
        // Anything else is the WebAssembly module itself failing; the next run gets a fresh one.
        modules.delete(heapLimitInBytes);
        throw new SandboxError(
          `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        try {
          runtime?.dispose();
        } catch {
          // A module that failed may not be able to free; it has been dropped from the cache above.
        }
      }
    },
  };
}

async function runInRuntime(
  runtime: QuickJSRuntime,
  request: CodeRunRequest,
  maxStdoutInBytes: number,
  heapIsFull: () => boolean,
): Promise<CodeRunResult> {
  const { timeoutInMs, memoryLimitInBytes } = request;
  const deadline = Date.now() + timeoutInMs;
  let stoppedFor: 'timeout' | 'memory' | undefined;
  let lastSampleAt = 0;

  runtime.setMemoryLimit(memoryLimitInBytes);
  runtime.setMaxStackSize(maxStackSizeInBytes);
  runtime.setInterruptHandler(() => {
    if (stoppedFor) return true;
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
    if (stoppedFor === 'timeout')
      return new SandboxError(`Function timed out after ${timeoutInMs} ms`, 'timeout');
    if (stoppedFor === 'memory') {
      const megabytes = Math.round(memoryLimitInBytes / (1024 * 1024));
      return new SandboxError(`Function ran out of memory (limit ${megabytes} MB)`, 'memory');
    }
    return undefined;
  };

  const vm = runtime.newContext();
  const timers = new Map<number, Timer>();
  const owned: QuickJSHandle[] = [];
  const stdout: string[] = [];
  let stdoutBytes = 0;
  let stdoutTruncated = false;

  try {
    const write = vm.newFunction('write', (text) => {
      if (stdoutTruncated) return;
      const line = vm.getString(text);
      stdoutBytes += Buffer.byteLength(line) + 1;
      if (stdoutBytes > maxStdoutInBytes) {
        stdoutTruncated = true;
        stdout.push('[output truncated]');
        return;
      }
      stdout.push(line);
    });
    owned.push(write);
    installTimers(vm, timers);

    const setup = vm.unwrapResult(vm.evalCode(prelude, 'prelude.js'));
    owned.push(setup);
    const helpers = vm.unwrapResult(vm.callFunction(setup, vm.undefined, write));
    owned.push(helpers);
    const toJson = vm.getProp(helpers, 'toJson');
    owned.push(toJson);
    const describe = vm.getProp(helpers, 'describe');
    owned.push(describe);

    const fail = (error: QuickJSHandle): SandboxError => {
      const stop = stopped();
      if (stop) return stop;
      const described = vm.callFunction(describe, vm.undefined, error);
      if (described.error) {
        described.error.dispose();
        return new SandboxError(stopped()?.message ?? 'Error: the thrown value could not be read');
      }
      const message = vm.getString(described.value);
      described.value.dispose();
      if (message === 'InternalError: out of memory' || (message === 'null' && heapIsFull())) {
        return new SandboxError('InternalError: out of memory', 'memory');
      }
      return new SandboxError(nodeStyle(message));
    };

    // The newline before the closing brace keeps a trailing line comment in user code harmless.
    const evaluated = vm.evalCode(`(async () => {\n${request.code}\n})()`, 'function.js');
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
    const value = await settle(runtime, vm, promise, timers, deadline, fail, stopped, expire);
    try {
      const json = vm.callFunction(toJson, vm.undefined, value);
      if (json.error) {
        const error = fail(json.error);
        json.error.dispose();
        throw new SandboxError(`Function result is not JSON-serializable: ${error.message}`, error.kind);
      }
      const text = vm.typeof(json.value) === 'string' ? vm.getString(json.value) : undefined;
      json.value.dispose();
      return { result: text === undefined ? undefined : JSON.parse(text), stdout: formatStdout(stdout) };
    } finally {
      value.dispose();
    }
  } finally {
    for (const timer of timers.values()) timer.callback.dispose();
    for (const handle of owned.reverse()) if (handle.alive) handle.dispose();
    vm.dispose();
  }
}

function formatStdout(lines: string[]): string {
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
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

function installTimers(vm: QuickJSContext, timers: Map<number, Timer>): void {
  let nextId = 1;
  const setTimeoutHandle = vm.newFunction('setTimeout', (callback, delay) => {
    if (vm.typeof(callback) !== 'function') return vm.newNumber(0);
    // Each pending timer holds host memory, which the sandbox's limits do not see.
    if (timers.size >= maxPendingTimers) throw new Error(`More than ${maxPendingTimers} pending timers`);
    const id = nextId++;
    const delayInMs = delay && vm.typeof(delay) === 'number' ? Math.max(0, vm.getNumber(delay)) : 0;
    timers.set(id, { id, dueAt: Date.now() + delayInMs, callback: callback.dup() });
    return vm.newNumber(id);
  });
  const clearTimeoutHandle = vm.newFunction('clearTimeout', (idHandle) => {
    if (!idHandle || vm.typeof(idHandle) !== 'number') return;
    const timer = timers.get(vm.getNumber(idHandle));
    if (timer) {
      timers.delete(timer.id);
      timer.callback.dispose();
    }
  });
  vm.setProp(vm.global, 'setTimeout', setTimeoutHandle);
  vm.setProp(vm.global, 'clearTimeout', clearTimeoutHandle);
  setTimeoutHandle.dispose();
  clearTimeoutHandle.dispose();
}

/**
 * Drives the promise of the user's async function to completion: runs pending jobs, fires due
 * timers, and waits on the host only while a timer can still change the outcome.
 */
async function settle(
  runtime: QuickJSRuntime,
  vm: QuickJSContext,
  promise: QuickJSHandle,
  timers: Map<number, Timer>,
  deadline: number,
  fail: (error: QuickJSHandle) => SandboxError,
  stopped: () => SandboxError | undefined,
  expire: () => SandboxError,
): Promise<QuickJSHandle> {
  for (;;) {
    const jobs = runtime.executePendingJobs();
    if (jobs.error) {
      const error = fail(jobs.error);
      jobs.error.dispose();
      throw error;
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
    if (Date.now() >= deadline) throw expire();

    let next: Timer | undefined;
    for (const timer of timers.values()) if (!next || timer.dueAt < next.dueAt) next = timer;
    if (!next) {
      // No job and no timer is left that could settle it: waiting for the deadline would change nothing.
      throw new SandboxError('Function never finished: it awaits a promise that nothing settles');
    }
    const now = Date.now();
    if (next.dueAt >= deadline) {
      await sleep(Math.max(0, deadline - now));
      throw expire();
    }
    if (next.dueAt > now) await sleep(next.dueAt - now);
    timers.delete(next.id);
    const called = vm.callFunction(next.callback, vm.undefined);
    next.callback.dispose();
    if (called.error) {
      const error = fail(called.error);
      called.error.dispose();
      throw error;
    }
    called.value.dispose();
  }
}
