/**
 * The function-block sandbox: user code runs in QuickJS compiled to WebAssembly, one fresh runtime
 * per run, with nothing of the host inside but `console`, timers and, when the request brings an
 * HTTP client, a minimal `fetch` whose every call goes through that client (the guard).
 *
 * Memory is bounded twice because the runtime's own limit is unreliable in this build: QuickJS
 * cannot see allocation sizes under Emscripten, so `setMemoryLimit` only rejects single oversized
 * allocations and counts live allocations, not bytes. So (1) the WebAssembly heap shared by all runs
 * of a process has a hard maximum (a bomb ends in a clean `out of memory` instead of growing the host
 * to the 2 GB wasm32 ceiling), and (2) the interrupt handler samples the runtime's real usage and
 * stops a run that exceeds its own limit.
 *
 * Speed: a run costs little more than QuickJS creating the runtime and its context. Compiling
 * source inside the sandbox is what costs most, so `console`, `fetch` and the helpers the host needs
 * are host functions and handles taken from the fresh context before user code runs. Besides the
 * user's code, a run compiles only what it turns out to need: a small helper when it logs an object,
 * the full formatter when it logs a wide or unusual one, a describer for an odd thrown value.
 */
import { STATUS_CODES } from 'node:http';
import variantModule from '@jitl/quickjs-singlefile-cjs-release-sync';
import {
  type ContextEvalOptions,
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
  type VmFunctionImplementation,
} from 'quickjs-emscripten-core';
import { formatBytes } from '../../core/engine/json-size';
import type {
  CodeRunner,
  CodeRunRequest,
  CodeRunResult,
  HttpClient,
  HttpRequest,
} from '../../core/engine/types';

export class SandboxError extends Error {
  /** `error`: the code threw; `timeout`, `memory` and `cancelled` (the request's signal): the sandbox stopped it. */
  readonly kind: 'error' | 'timeout' | 'memory' | 'cancelled';

  constructor(message: string, kind: 'error' | 'timeout' | 'memory' | 'cancelled' = 'error') {
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
const maxPendingTimers = 1000;
const defaultMaxFetchesPerRun = 20;
const defaultMaxFetchResponseBytes = 5 * 1024 * 1024;
/**
 * A request may run this much past the function's deadline, so that the function's own time-out is
 * what the user sees when time runs out, not the request's; the late answer is dropped.
 */
const fetchGraceInMs = 50;
const consoleMethods = ['log', 'info', 'warn', 'error', 'debug'];
/** Every source evaluated here starts with a parenthesis: looking for module syntax would be wasted. */
const scriptOptions: ContextEvalOptions = { type: 'global' };
const bodyTypeMessage = 'fetch body must be a string (use JSON.stringify for objects)';
const headersTypeMessage = 'fetch headers must be an object or a list of [name, value] pairs';

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

/**
 * The console's formatter, as `inspect(value, depth, seen)`. The host formats plain values and small
 * objects itself (see ConsoleFormatter); this one, compiled in a run only when needed, takes what is
 * cheaper or only possible to read inside the sandbox: wide arrays and objects, symbols, odd functions.
 */
const inspectSource = `(function () {
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
  return inspect;
})()`;

/** Wider arrays and objects go to the formatter inside the sandbox, where reading an item costs less. */
const maxItemsFormattedOnHost = 64;

/**
 * What the console shows for an object that only the sandbox can tell (errors, dates, regular
 * expressions, exactly as the formatter above puts them), else how the host goes on: the keys to
 * list (`Object.keys`), or 0 `[Object]`, 1 `[Array]`, 2 list the items (no holes, no extra keys),
 * 3 leave it to the formatter. A handful of lines: compiling it costs a fraction of the formatter.
 */
const classifySource = `(function (value, depth) {
  if (value instanceof Error) return value.stack ? value.name + ': ' + value.message + '\\n' + value.stack.trimEnd() : value.name + ': ' + value.message;
  if (value instanceof Date) return isNaN(value) ? 'Invalid Date' : value.toISOString();
  if (value instanceof RegExp) return String(value);
  const isArray = Array.isArray(value);
  if (depth > 2) return isArray ? 1 : 0;
  const keys = Object.keys(value);
  if (keys.length > ${maxItemsFormattedOnHost}) return 3;
  return isArray ? (keys.length === value.length ? 2 : 3) : keys;
})`;

/** How a thrown value that is not an error with a string name and message becomes a message; compiled only when needed. */
const describeSource = `(function (error) {
  if (error !== null && typeof error === 'object' && 'message' in error) {
    return String(error.name || 'Error') + ': ' + String(error.message);
  }
  return String(error);
})`;

interface Timer {
  id: number;
  dueAt: number;
  callback: QuickJSHandle;
}

/**
 * Handles taken from the fresh context before user code runs, so that code replacing `JSON` or
 * `Object.freeze` cannot affect what the host does with them.
 */
interface Intrinsics {
  stringify: QuickJSHandle;
  freeze: QuickJSHandle;
}

/** What `fetch` needs besides those: `JSON.parse` for `json()`, `Reflect.get` to read the caller's options. */
interface FetchIntrinsics extends Intrinsics {
  parse: QuickJSHandle;
  reflectGet: QuickJSHandle;
}

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
  const take = (loaded: LoadedModule): Sandbox => {
    const ready = prepared;
    prepared = undefined;
    if (ready?.loaded === loaded) return ready;
    if (ready) release(ready);
    return newSandbox(loaded);
  };
  return {
    async run(request: CodeRunRequest): Promise<CodeRunResult> {
      const loading = loadModule(heapLimitInBytes);
      const loaded = loading instanceof Promise ? await loading : loading;
      let sandbox: Sandbox | undefined;
      try {
        sandbox = take(loaded);
        return await runInRuntime(
          sandbox,
          request,
          maxStdoutInBytes,
          loaded.heapIsFull,
          fetchLimits,
          options.interruptRequested,
        );
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
                prepared = newSandbox(next);
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
}

function newSandbox(loaded: LoadedModule): Sandbox {
  const runtime = loaded.module.newRuntime();
  try {
    return { loaded, runtime, vm: runtime.newContext() };
  } catch (error) {
    runtime.dispose();
    throw error;
  }
}

function release(sandbox: Sandbox): void {
  try {
    sandbox.vm.dispose();
    sandbox.runtime.dispose();
  } catch {
    // A module that failed may not be able to free; it has been dropped from the cache.
  }
}

async function runInRuntime(
  { runtime, vm }: Sandbox,
  request: CodeRunRequest,
  maxStdoutInBytes: number,
  heapIsFull: () => boolean,
  fetchLimits: FetchLimits,
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

  const timers = new Map<number, Timer>();
  const owned: QuickJSHandle[] = [];
  const fetches: HostFetches = { deferreds: new Set(), work: new Set(), closed: false };
  const stdout: string[] = [];
  let stdoutBytes = 0;
  let stdoutTruncated = false;

  try {
    const write = (line: string) => {
      stdoutBytes += Buffer.byteLength(line) + 1;
      if (stdoutBytes > maxStdoutInBytes) {
        stdoutTruncated = true;
        stdout.push('[output truncated]');
        return;
      }
      stdout.push(line);
    };
    const json = vm.getProp(vm.global, 'JSON');
    owned.push(json);
    const objectConstructor = vm.getProp(vm.global, 'Object');
    owned.push(objectConstructor);
    const intrinsics: Intrinsics = {
      stringify: vm.getProp(json, 'stringify'),
      freeze: vm.getProp(objectConstructor, 'freeze'),
    };
    owned.push(intrinsics.stringify, intrinsics.freeze);
    // In the order the globals have always been created: code may list them.
    installTimers(vm, timers);
    installConsole(vm, intrinsics, owned, write, () => stdoutTruncated);
    if (request.http) {
      const reflect = vm.getProp(vm.global, 'Reflect');
      owned.push(reflect);
      const fetchIntrinsics: FetchIntrinsics = {
        ...intrinsics,
        parse: vm.getProp(json, 'parse'),
        reflectGet: vm.getProp(reflect, 'get'),
      };
      owned.push(fetchIntrinsics.parse, fetchIntrinsics.reflectGet);
      const fetch = newSandboxFetch(
        vm,
        request.http,
        deadline,
        fetches,
        fetchLimits,
        signal,
        fetchIntrinsics,
        owned,
      );
      vm.setProp(vm.global, 'fetch', fetch);
      fetch.dispose();
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
        stdout: formatStdout(stdout),
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
    case 'string':
      // Before serializing: a huge string would be copied once more inside the sandbox.
      checkResultLength(vm, value, maxResultBytes);
      break;
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
      checkResultLength(vm, json.value, maxResultBytes);
      text = vm.getString(json.value);
    }
  } finally {
    json.value.dispose();
  }
  return text === undefined ? undefined : JSON.parse(text);
}

/** Fails a result whose text is over the cap while it is still inside the sandbox, not copied out. */
function checkResultLength(vm: QuickJSContext, text: QuickJSHandle, maxResultBytes: number): void {
  if (!Number.isFinite(maxResultBytes)) return;
  const length = vm.getProp(text, 'length');
  const characters = vm.getNumber(length);
  length.dispose();
  if (characters > maxResultBytes) {
    throw new SandboxError(
      `Function result is larger than ${formatBytes(maxResultBytes)}, the limit of one block's output`,
    );
  }
}

/** `String(value)` read on the host, for a value that is neither an object, a function nor a symbol. */
function plainText(vm: QuickJSContext, value: QuickJSHandle, type: string): string {
  switch (type) {
    case 'string':
    case 'bigint':
      return vm.getString(value);
    case 'number':
      return String(vm.getNumber(value));
    case 'boolean':
      return vm.getNumber(value) === 0 ? 'false' : 'true';
    case 'object':
      return 'null';
    default:
      return 'undefined';
  }
}

/** `name: message` of a thrown object whose name and message are strings, as `describe` would put it. */
function errorMessageOf(vm: QuickJSContext, error: QuickJSHandle): string | undefined {
  const name = vm.getProp(error, 'name');
  try {
    if (vm.typeof(name) !== 'string') return undefined;
    const message = vm.getProp(error, 'message');
    try {
      if (vm.typeof(message) !== 'string') return undefined;
      return (vm.getString(name) || 'Error') + ': ' + vm.getString(message);
    } finally {
      message.dispose();
    }
  } finally {
    name.dispose();
  }
}

/** The formatter inside the sandbox must redo a whole value: the host read a getter that threw. */
class ReadFailed extends Error {}

/** The sandbox threw while a value was read; the console call throws it on. */
class ThrownInSandbox extends Error {
  readonly thrown: QuickJSHandle;

  constructor(thrown: QuickJSHandle) {
    super('thrown in the sandbox');
    this.thrown = thrown;
  }
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function quote(text: string): string {
  return "'" + text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n') + "'";
}

/**
 * Formats console arguments as `inspect` inside the sandbox would, reading them through handles:
 * each value is read once, in the same order, getters included. What only the sandbox can tell
 * (`instanceof`, dates, error stacks) comes from a small compiled helper; wide or unusual values go
 * to the full formatter, compiled only then.
 */
class ConsoleFormatter {
  private classify: QuickJSHandle | undefined;
  private inspect: QuickJSHandle | undefined;

  constructor(
    private readonly vm: QuickJSContext,
    private readonly owned: QuickJSHandle[],
  ) {}

  /** The text of one console argument; throws ThrownInSandbox with what reading it threw. */
  format(value: QuickJSHandle): string {
    try {
      return this.show(value, 0, []);
    } catch (error) {
      if (!(error instanceof ReadFailed)) throw error;
      return this.inSandbox(value, 0, []);
    }
  }

  private show(value: QuickJSHandle, depth: number, seen: QuickJSHandle[]): string {
    const { vm } = this;
    const type = vm.typeof(value);
    switch (type) {
      case 'string':
        return depth === 0 ? vm.getString(value) : quote(vm.getString(value));
      case 'bigint':
        return vm.getString(value) + 'n';
      case 'number':
      case 'boolean':
      case 'undefined':
        return plainText(vm, value, type);
      case 'function':
        return this.showFunction(value, depth, seen);
      case 'object':
        break;
      case 'unknown':
        // What a getter threw is pending; the formatter reads the value again and throws it properly.
        throw new ReadFailed();
      default:
        return this.inSandbox(value, depth, seen);
    }
    if (vm.eq(value, vm.null)) return 'null';
    for (const ancestor of seen) if (vm.eq(value, ancestor)) return '[Circular]';
    const kind = this.kindOf(value, depth);
    if (typeof kind === 'string') return kind;
    const inner = [...seen, value];
    const parts: string[] = [];
    if (typeof kind === 'number') {
      if (kind === 0) return '[Object]';
      if (kind === 1) return '[Array]';
      if (kind !== 2) return this.inSandbox(value, depth, seen);
      const length = vm.getLength(value) ?? 0;
      for (let index = 0; index < length; index++) {
        const item = vm.getProp(value, index);
        try {
          parts.push(this.show(item, depth + 1, inner));
        } finally {
          item.dispose();
        }
      }
      return parts.length === 0 ? '[]' : '[ ' + parts.join(', ') + ' ]';
    }
    try {
      const count = vm.getLength(kind) ?? 0;
      for (let index = 0; index < count; index++) {
        const key = vm.getProp(kind, index);
        try {
          const name = vm.getString(key);
          const item = vm.getProp(value, key);
          try {
            parts.push(
              (identifier.test(name) ? name : quote(name)) + ': ' + this.show(item, depth + 1, inner),
            );
          } finally {
            item.dispose();
          }
        } finally {
          key.dispose();
        }
      }
    } finally {
      kind.dispose();
    }
    return parts.length === 0 ? '{}' : '{ ' + parts.join(', ') + ' }';
  }

  private showFunction(value: QuickJSHandle, depth: number, seen: QuickJSHandle[]): string {
    const { vm } = this;
    const name = vm.getProp(value, 'name');
    try {
      const type = vm.typeof(name);
      if (type === 'unknown') throw new ReadFailed();
      if (type !== 'string') return this.inSandbox(value, depth, seen);
      return '[Function: ' + (vm.getString(name) || '(anonymous)') + ']';
    } finally {
      name.dispose();
    }
  }

  /** The classifier's answer; the keys come as the sandbox array, which the caller disposes. */
  private kindOf(value: QuickJSHandle, depth: number): string | number | QuickJSHandle {
    const { vm } = this;
    if (!this.classify) this.classify = this.compile(classifySource, 'classify.js');
    const depthHandle = vm.newNumber(depth);
    const kind = vm.callFunction(this.classify, vm.undefined, value, depthHandle);
    depthHandle.dispose();
    if (kind.error) throw new ThrownInSandbox(kind.error);
    const type = vm.typeof(kind.value);
    if (type === 'object') return kind.value;
    try {
      return type === 'string' ? vm.getString(kind.value) : vm.getNumber(kind.value);
    } finally {
      kind.value.dispose();
    }
  }

  /** `inspect(value, depth, seen)` run by the formatter inside the sandbox. */
  private inSandbox(value: QuickJSHandle, depth: number, seen: QuickJSHandle[]): string {
    const { vm } = this;
    if (!this.inspect) this.inspect = this.compile(inspectSource, 'console.js');
    const seenArray = vm.newArray();
    const depthHandle = vm.newNumber(depth);
    try {
      seen.forEach((ancestor, index) => {
        vm.setProp(seenArray, index, ancestor);
      });
      const shown = vm.callFunction(this.inspect, vm.undefined, value, depthHandle, seenArray);
      if (shown.error) throw new ThrownInSandbox(shown.error);
      const text = vm.getString(shown.value);
      shown.value.dispose();
      return text;
    } finally {
      depthHandle.dispose();
      seenArray.dispose();
    }
  }

  private compile(source: string, filename: string): QuickJSHandle {
    const compiled = this.vm.evalCode(source, filename, scriptOptions);
    if (compiled.error) throw new ThrownInSandbox(asCallFailure(this.vm, compiled.error));
    this.owned.push(compiled.value);
    return compiled.value;
  }
}

/**
 * Compiling at the edge of the stack fails with a SyntaxError; calling a function there fails with
 * an InternalError, which is what the code gets from `console.log` when it runs out of stack.
 */
function asCallFailure(vm: QuickJSContext, error: QuickJSHandle): QuickJSHandle {
  if (vm.typeof(error) !== 'object' || errorMessageOf(vm, error) !== 'SyntaxError: stack overflow')
    return error;
  const internalError = vm.getProp(vm.global, 'InternalError');
  const message = vm.newString('stack overflow');
  // Made there, or thrown for want of stack: either way an InternalError, unless the code replaced it.
  const made = vm.callFunction(internalError, vm.undefined, message);
  message.dispose();
  internalError.dispose();
  const replacement = made.error ?? made.value;
  if (vm.typeof(replacement) !== 'object') {
    replacement.dispose();
    return error;
  }
  error.dispose();
  return replacement;
}

/**
 * A host function with the `length` a function written in JavaScript would have (this build gives
 * host functions 0, whatever they declare).
 */
function newHostFunction(
  vm: QuickJSContext,
  name: string,
  length: number,
  implementation: VmFunctionImplementation<QuickJSHandle>,
): QuickJSHandle {
  const made = vm.newFunction(name, implementation);
  if (length > 0) {
    const value = vm.newNumber(length);
    vm.defineProp(made, 'length', { value, configurable: true });
    value.dispose();
  }
  return made;
}

/** `console.log` and its siblings: one host function, frozen into `console`. */
function installConsole(
  vm: QuickJSContext,
  intrinsics: Intrinsics,
  owned: QuickJSHandle[],
  write: (line: string) => void,
  truncated: () => boolean,
): void {
  const formatter = new ConsoleFormatter(vm, owned);
  const line = vm.newFunction('line', (...args: QuickJSHandle[]) => {
    const parts: string[] = [];
    for (const arg of args) {
      const type = vm.typeof(arg);
      if (type !== 'function' && type !== 'symbol' && (type !== 'object' || vm.eq(arg, vm.null))) {
        // Once the output is cut, a plain value has nothing left to show; an object is still read (getters).
        if (!truncated()) parts.push(type === 'bigint' ? vm.getString(arg) + 'n' : plainText(vm, arg, type));
        continue;
      }
      try {
        parts.push(formatter.format(arg));
      } catch (error) {
        if (error instanceof ThrownInSandbox) return { error: error.thrown };
        throw error;
      }
    }
    if (!truncated()) write(parts.join(' '));
  });
  const consoleObject = vm.newObject();
  for (const method of consoleMethods) vm.setProp(consoleObject, method, line);
  line.dispose();
  vm.callFunction(intrinsics.freeze, vm.undefined, consoleObject).dispose();
  vm.setProp(vm.global, 'console', consoleObject);
  consoleObject.dispose();
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

interface FetchLimits {
  maxFetches: number;
  maxResponseBytes: number;
}

interface HostFetches {
  /** Promises handed to the sandbox and not settled yet; disposed when the run ends. */
  deferreds: Set<QuickJSDeferredPromise>;
  /** Requests under way; each settles its promise in the sandbox, then leaves the set. */
  work: Set<Promise<void>>;
  /** The run is over: late answers are dropped. */
  closed: boolean;
}

interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

function fetchInitOf(text: string): FetchInit {
  const parsed = JSON.parse(text) as { method?: unknown; headers?: unknown; body?: unknown };
  const headers: Record<string, string> = {};
  if (parsed.headers !== null && typeof parsed.headers === 'object') {
    for (const [name, value] of Object.entries(parsed.headers)) headers[name] = String(value);
  }
  return {
    method: typeof parsed.method === 'string' && parsed.method !== '' ? parsed.method.toUpperCase() : 'GET',
    headers,
    ...(typeof parsed.body === 'string' ? { body: parsed.body } : {}),
  };
}

function decodeBody(body: Uint8Array, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder().decode(body);
  }
}

/**
 * Ends a `fetch` call with a rejected promise: with a value thrown in the sandbox while reading the
 * arguments, or else with a TypeError carrying `message`, as fetch rejects.
 */
class FetchRejection extends Error {
  readonly thrown: QuickJSHandle | undefined;

  constructor(message: string, thrown?: QuickJSHandle) {
    super(message);
    this.thrown = thrown;
  }
}

/** A TypeError made by the sandbox's `TypeError`, as `new TypeError(message)` in the code would; or what that threw. */
function newTypeError(vm: QuickJSContext, message: string): QuickJSHandle {
  const typeError = vm.getProp(vm.global, 'TypeError');
  const text = vm.newString(message);
  try {
    const made = vm.callFunction(typeError, vm.undefined, text);
    return made.error ?? made.value;
  } finally {
    text.dispose();
    typeError.dispose();
  }
}

/**
 * Reads the arguments of a `fetch` call the way the code sees them (getters, `String()` of what is not
 * a string), collecting every handle it makes in `temporaries`.
 */
class FetchArguments {
  private stringFunction: QuickJSHandle | undefined;

  constructor(
    private readonly vm: QuickJSContext,
    private readonly intrinsics: FetchIntrinsics,
    private readonly temporaries: QuickJSHandle[],
  ) {}

  /** The URL and the init as the host client takes them. */
  read(input: QuickJSHandle, init: QuickJSHandle): { url: string; init: FetchInit } {
    const { vm } = this;
    const options = this.isNullish(init) ? undefined : init;
    const body = options ? this.get(options, 'body') : vm.undefined;
    const bodyType = vm.typeof(body);
    const hasBody = bodyType === 'string';
    if (!hasBody && !this.isNullish(body)) throw new FetchRejection(bodyTypeMessage);
    let target: QuickJSHandle | undefined;
    if (vm.typeof(input) === 'object' && !vm.eq(input, vm.null)) {
      const url = this.get(input, 'url');
      if (vm.typeof(url) === 'string') target = url;
    }
    target ??= this.string(input);
    const method = options ? this.get(options, 'method') : vm.undefined;
    const request = this.keep(vm.newObject());
    vm.setProp(
      request,
      'method',
      vm.typeof(method) === 'undefined' ? this.keep(vm.newString('GET')) : this.string(method),
    );
    vm.setProp(request, 'headers', this.headers(options ? this.get(options, 'headers') : vm.undefined));
    if (hasBody) vm.setProp(request, 'body', body);
    // The same JSON the host client has always taken: exact for any string, NUL characters included.
    const json = this.unwrap(vm.callFunction(this.intrinsics.stringify, vm.undefined, request));
    return { url: vm.getString(target), init: fetchInitOf(vm.getString(json)) };
  }

  /** Headers given as an object, as `[name, value]` pairs, or as a Headers-like object with `forEach`. */
  private headers(given: QuickJSHandle): QuickJSHandle {
    const { vm } = this;
    const headers = this.keep(vm.newObject());
    if (this.isNullish(given)) return headers;
    if (this.isArray(given)) {
      for (let index = 0; index < vm.getNumber(this.get(given, 'length')); index++) {
        const pair = this.get(given, index);
        vm.setProp(headers, this.string(this.get(pair, 0)), this.string(this.get(pair, 1)));
      }
      return headers;
    }
    const type = vm.typeof(given);
    if (
      vm.typeof(this.get(given, 'forEach')) === 'function' &&
      vm.typeof(this.get(given, 'get')) === 'function'
    ) {
      const collect = this.keep(
        vm.newFunction('', (value, name) => {
          try {
            const key = this.string(name ?? vm.undefined);
            vm.setProp(headers, key, this.string(value ?? vm.undefined));
          } catch (error) {
            // Rethrown in the sandbox as it was thrown there; the temporaries keep their own handle.
            if (error instanceof FetchRejection && error.thrown) return { error: error.thrown.dup() };
            throw error;
          }
        }),
      );
      this.unwrap(vm.callFunction(this.get(given, 'forEach'), given, collect));
      return headers;
    }
    if (type !== 'object') throw new FetchRejection(headersTypeMessage);
    const objectConstructor = this.keep(vm.getProp(vm.global, 'Object'));
    const keys = this.keep(vm.getProp(objectConstructor, 'keys'));
    const names = this.unwrap(vm.callFunction(keys, objectConstructor, given));
    const count = vm.getLength(names) ?? 0;
    for (let index = 0; index < count; index++) {
      const name = this.keep(vm.getProp(names, index));
      vm.setProp(headers, name, this.string(this.get(given, name)));
    }
    return headers;
  }

  private isNullish(value: QuickJSHandle): boolean {
    const type = this.vm.typeof(value);
    return type === 'undefined' || (type === 'object' && this.vm.eq(value, this.vm.null));
  }

  private isArray(value: QuickJSHandle): boolean {
    const { vm } = this;
    const array = this.keep(vm.getProp(vm.global, 'Array'));
    const isArray = this.keep(vm.getProp(array, 'isArray'));
    const answer = this.unwrap(vm.callFunction(isArray, array, value));
    return vm.typeof(answer) === 'boolean' && vm.getNumber(answer) !== 0;
  }

  /** `object[key]`, running getters and proxies as the code would, with what they throw caught. */
  private get(object: QuickJSHandle, key: string | number | QuickJSHandle): QuickJSHandle {
    const { vm } = this;
    const type = vm.typeof(object);
    if (type === 'undefined' || (type === 'object' && vm.eq(object, vm.null))) {
      const name = typeof key === 'object' ? vm.getString(key) : String(key);
      throw new FetchRejection(
        `cannot read property '${name}' of ${type === 'undefined' ? 'undefined' : 'null'}`,
      );
    }
    // A primitive has only what its prototype has.
    if (type !== 'object' && type !== 'function') return this.keep(vm.getProp(object, key));
    const keyHandle =
      typeof key === 'object'
        ? key
        : this.keep(typeof key === 'number' ? vm.newNumber(key) : vm.newString(key));
    return this.unwrap(vm.callFunction(this.intrinsics.reflectGet, vm.undefined, object, keyHandle));
  }

  /** `String(value)` as a sandbox string, by the sandbox's current `String` as the code would. */
  private string(value: QuickJSHandle): QuickJSHandle {
    const { vm } = this;
    if (vm.typeof(value) === 'string') return value;
    this.stringFunction ??= this.keep(vm.getProp(vm.global, 'String'));
    return this.unwrap(vm.callFunction(this.stringFunction, vm.undefined, value));
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.temporaries.push(handle);
    return handle;
  }

  private unwrap(
    result: { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle },
  ): QuickJSHandle {
    if (result.error)
      throw new FetchRejection('fetch: the arguments could not be read', this.keep(result.error));
    return this.keep(result.value);
  }
}

/**
 * `fetch` in the sandbox: a host function that reads its arguments, sends the request through the
 * run's HTTP client within what is left of the run's time, and settles the promise it returned with
 * a Response-like object, or rejects it with a TypeError carrying the client's message (a refusal
 * reads exactly as the guard words it), as fetch would.
 */
function newSandboxFetch(
  vm: QuickJSContext,
  http: HttpClient,
  deadline: number,
  fetches: HostFetches,
  limits: FetchLimits,
  signal: AbortSignal | undefined,
  intrinsics: FetchIntrinsics,
  owned: QuickJSHandle[],
): QuickJSHandle {
  let calls = 0;
  return newHostFunction(
    vm,
    'fetch',
    2,
    (input: QuickJSHandle | undefined, init: QuickJSHandle | undefined) => {
      const deferred = vm.newPromise();
      fetches.deferreds.add(deferred);
      // A promise leaves the set only once settled; whatever is left is disposed when the run ends.
      const rejectWith = (reason: QuickJSHandle) => {
        if (fetches.closed) return;
        deferred.reject(reason);
        fetches.deferreds.delete(deferred);
      };
      const reject = (message: string) => {
        if (fetches.closed) return;
        const error = newTypeError(vm, message);
        try {
          rejectWith(error);
        } finally {
          error.dispose();
        }
      };
      const temporaries: QuickJSHandle[] = [];
      let request: { url: string; init: FetchInit };
      try {
        request = new FetchArguments(vm, intrinsics, temporaries).read(
          input ?? vm.undefined,
          init ?? vm.undefined,
        );
      } catch (error) {
        if (error instanceof FetchRejection && error.thrown) rejectWith(error.thrown);
        else reject(error instanceof Error ? error.message : String(error));
        return deferred.handle;
      } finally {
        for (const handle of temporaries) if (handle.alive) handle.dispose();
      }
      calls += 1;
      if (calls > limits.maxFetches) {
        reject(`fetch: at most ${limits.maxFetches} requests per run`);
        return deferred.handle;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        reject('fetch: the function has no time left');
        return deferred.handle;
      }
      const { url, init: options } = request;
      // The signal is not part of the port yet; the guarded client honors it when given.
      const outbound: HttpRequest & { signal?: AbortSignal } = {
        url,
        method: options.method,
        headers: options.headers,
        ...(options.body === undefined ? {} : { body: options.body }),
        timeoutInMs: remaining + fetchGraceInMs,
        maxResponseBytes: limits.maxResponseBytes,
        ...(signal ? { signal } : {}),
      };
      const work: Promise<void> = http
        .request(outbound)
        .then(
          (response) => {
            if (fetches.closed) return;
            const headers: Record<string, string> = Object.fromEntries(
              Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), value]),
            );
            const made = newResponse(vm, intrinsics, owned, {
              status: response.status,
              statusText: STATUS_CODES[response.status] ?? '',
              url,
              headers,
              text: decodeBody(response.body, response.headers['content-type']),
            });
            if (made.error) {
              try {
                rejectWith(made.error);
              } finally {
                made.error.dispose();
              }
              return;
            }
            try {
              deferred.resolve(made.value);
            } finally {
              made.value.dispose();
            }
            fetches.deferreds.delete(deferred);
          },
          (error: unknown) => reject(error instanceof Error ? error.message : String(error)),
        )
        .catch(() => {
          // The context can fail to take the answer (out of memory); the run reports that itself.
        })
        .finally(() => fetches.work.delete(work));
      fetches.work.add(work);
      return deferred.handle;
    },
  );
}

interface FetchAnswer {
  status: number;
  statusText: string;
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  text: string;
}

/**
 * The frozen Response-like object `fetch` resolves with, built when the answer arrives, or what
 * `Object.freeze` threw. The body moves into the sandbox at once (its memory counts against the run);
 * the methods are host functions.
 */
function newResponse(
  vm: QuickJSContext,
  intrinsics: FetchIntrinsics,
  owned: QuickJSHandle[],
  answer: FetchAnswer,
): { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle } {
  const { headers: record, text } = answer;
  const names = Object.keys(record);
  // `newString` stops at a NUL character; a body holding one travels as JSON.
  let body: QuickJSHandle;
  if (text.includes('\u0000')) {
    const json = vm.newString(JSON.stringify(text));
    const parsed = vm.callFunction(intrinsics.parse, vm.undefined, json);
    json.dispose();
    body = vm.unwrapResult(parsed);
  } else {
    body = vm.newString(text);
  }
  owned.push(body);
  if (vm.typeof(body) !== 'string') throw new Error('fetch: the body does not fit');

  /** A header name the code passed, as `String(name).toLowerCase()`; undefined when reading it threw. */
  const nameOf = (handle: QuickJSHandle | undefined): string | { error: QuickJSHandle } => {
    const value = handle ?? vm.undefined;
    let asString = value;
    if (vm.typeof(value) !== 'string') {
      const stringFunction = vm.getProp(vm.global, 'String');
      const converted = vm.callFunction(stringFunction, vm.undefined, value);
      stringFunction.dispose();
      if (converted.error) return { error: converted.error };
      asString = converted.value;
    }
    const json = vm.callFunction(intrinsics.stringify, vm.undefined, asString);
    if (asString !== value) asString.dispose();
    if (json.error) return { error: json.error };
    const name = JSON.parse(vm.getString(json.value)) as string;
    json.value.dispose();
    return name.toLowerCase();
  };
  const has = (name: string) => Object.hasOwn(record, name);
  const iteratorOf = (items: QuickJSHandle[]): QuickJSHandle | { error: QuickJSHandle } => {
    const array = vm.newArray();
    try {
      items.forEach((item, index) => {
        vm.setProp(array, index, item);
      });
      const symbol = vm.getWellKnownSymbol('iterator');
      const method = vm.getProp(array, symbol);
      symbol.dispose();
      const iterator = vm.callFunction(method, array);
      method.dispose();
      return iterator.error ? { error: iterator.error } : iterator.value;
    } finally {
      for (const item of items) item.dispose();
      array.dispose();
    }
  };
  const settled = (outcome: { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle }) => {
    const deferred = vm.newPromise();
    const value = outcome.error ?? outcome.value;
    if (outcome.error) deferred.reject(value);
    else deferred.resolve(value);
    value.dispose();
    return deferred.handle;
  };

  const headers = vm.newObject();
  const response = vm.newObject();
  const define = (object: QuickJSHandle, key: string, value: QuickJSHandle) => {
    vm.setProp(object, key, value);
    value.dispose();
  };
  // The `Object.freeze` of the moment, as the code would call it.
  const objectConstructor = vm.getProp(vm.global, 'Object');
  const freeze = vm.getProp(objectConstructor, 'freeze');
  objectConstructor.dispose();
  try {
    define(
      headers,
      'get',
      newHostFunction(vm, 'get', 1, (name: QuickJSHandle | undefined) => {
        const key = nameOf(name);
        if (typeof key !== 'string') return key;
        return has(key) ? vm.newString(record[key]) : vm.null;
      }),
    );
    define(
      headers,
      'has',
      newHostFunction(vm, 'has', 1, (name: QuickJSHandle | undefined) => {
        const key = nameOf(name);
        if (typeof key !== 'string') return key;
        return has(key) ? vm.true : vm.false;
      }),
    );
    define(
      headers,
      'forEach',
      newHostFunction(vm, 'forEach', 1, (callback: QuickJSHandle | undefined) => {
        for (const name of names) {
          const value = vm.newString(record[name]);
          const key = vm.newString(name);
          const called = vm.callFunction(callback ?? vm.undefined, vm.undefined, value, key);
          value.dispose();
          key.dispose();
          if (called.error) return called;
          called.value.dispose();
        }
      }),
    );
    define(
      headers,
      'keys',
      vm.newFunction('keys', () => iteratorOf(names.map((name) => vm.newString(name)))),
    );
    define(
      headers,
      'entries',
      vm.newFunction('entries', () =>
        iteratorOf(
          names.map((name) => {
            const pair = vm.newArray();
            define(pair, '0', vm.newString(name));
            define(pair, '1', vm.newString(record[name]));
            return pair;
          }),
        ),
      ),
    );
    const frozenHeaders = vm.callFunction(freeze, vm.undefined, headers);
    if (frozenHeaders.error) {
      response.dispose();
      return frozenHeaders;
    }
    frozenHeaders.value.dispose();

    define(response, 'ok', answer.status >= 200 && answer.status < 300 ? vm.true : vm.false);
    define(response, 'status', vm.newNumber(answer.status));
    define(response, 'statusText', vm.newString(answer.statusText));
    define(response, 'url', vm.newString(answer.url));
    vm.setProp(response, 'headers', headers);
    define(
      response,
      'text',
      vm.newFunction('text', () => settled({ value: body.dup() })),
    );
    define(
      response,
      'json',
      vm.newFunction('json', () => settled(vm.callFunction(intrinsics.parse, vm.undefined, body))),
    );
    const frozen = vm.callFunction(freeze, vm.undefined, response);
    if (frozen.error) {
      response.dispose();
      return frozen;
    }
    frozen.value.dispose();
    return { value: response };
  } catch (error) {
    response.dispose();
    throw error;
  } finally {
    freeze.dispose();
    headers.dispose();
  }
}
