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
 */
import { STATUS_CODES } from 'node:http';
import variantModule from '@jitl/quickjs-singlefile-cjs-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
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
const prelude = `(function (write, hostFetch) {
  const stringify = JSON.stringify;
  const parse = JSON.parse;
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
  if (typeof hostFetch === 'function') {
    const headerRecord = function (given) {
      const headers = {};
      if (given === undefined || given === null) return headers;
      if (Array.isArray(given)) {
        for (const pair of given) headers[String(pair[0])] = String(pair[1]);
      } else if (typeof given.forEach === 'function' && typeof given.get === 'function') {
        given.forEach(function (value, name) { headers[String(name)] = String(value); });
      } else if (typeof given === 'object') {
        for (const name of Object.keys(given)) headers[name] = String(given[name]);
      } else {
        throw new TypeError('fetch headers must be an object or a list of [name, value] pairs');
      }
      return headers;
    };
    globalThis.fetch = async function fetch(input, init) {
      const options = init === undefined || init === null ? {} : init;
      const body = options.body;
      if (body !== undefined && body !== null && typeof body !== 'string') {
        throw new TypeError('fetch body must be a string (use JSON.stringify for objects)');
      }
      const target = input !== null && typeof input === 'object' && typeof input.url === 'string' ? input.url : String(input);
      const request = stringify({
        method: options.method === undefined ? 'GET' : String(options.method),
        headers: headerRecord(options.headers),
        body: body === null ? undefined : body,
      });
      let raw;
      try {
        raw = await hostFetch(target, request);
      } catch (error) {
        // Like fetch: a request that got no response rejects with a TypeError.
        throw new TypeError(error !== null && typeof error === 'object' ? String(error.message) : String(error));
      }
      const answer = parse(raw);
      const headers = answer.headers;
      const text = answer.body;
      const names = function () { return Object.keys(headers); };
      return Object.freeze({
        ok: answer.status >= 200 && answer.status < 300,
        status: answer.status,
        statusText: answer.statusText,
        url: answer.url,
        headers: Object.freeze({
          get: function (name) { const value = headers[String(name).toLowerCase()]; return value === undefined ? null : value; },
          has: function (name) { return headers[String(name).toLowerCase()] !== undefined; },
          forEach: function (callback) { for (const name of names()) callback(headers[name], name); },
          keys: function () { return names()[Symbol.iterator](); },
          entries: function () { return names().map(function (name) { return [name, headers[name]]; })[Symbol.iterator](); },
        }),
        text: async function () { return text; },
        json: async function () { return parse(text); },
      });
    };
  }
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
  const fetchLimits: FetchLimits = {
    maxFetches: options.maxFetchesPerRun ?? defaultMaxFetchesPerRun,
    maxResponseBytes: options.maxFetchResponseBytes ?? defaultMaxFetchResponseBytes,
  };
  return {
    async run(request: CodeRunRequest): Promise<CodeRunResult> {
      const { module, heapIsFull } = await loadModule(heapLimitInBytes);
      let runtime: QuickJSRuntime | undefined;
      try {
        runtime = module.newRuntime();
        return await runInRuntime(runtime, request, maxStdoutInBytes, heapIsFull, fetchLimits);
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
  fetchLimits: FetchLimits,
): Promise<CodeRunResult> {
  const { timeoutInMs, memoryLimitInBytes, signal } = request;
  const deadline = Date.now() + timeoutInMs;
  let stoppedFor: 'timeout' | 'memory' | 'cancelled' | undefined;
  let lastSampleAt = 0;

  runtime.setMemoryLimit(memoryLimitInBytes);
  runtime.setMaxStackSize(maxStackSizeInBytes);
  runtime.setInterruptHandler(() => {
    if (stoppedFor) return true;
    if (signal?.aborted) {
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
    if (!stoppedFor && signal?.aborted) stoppedFor = 'cancelled';
    if (stoppedFor === 'cancelled') return new SandboxError('Function was cancelled', 'cancelled');
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
  const fetches: HostFetches = { deferreds: new Set(), work: new Set(), closed: false };
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
    const hostFetch = request.http
      ? newHostFetch(vm, request.http, deadline, fetches, fetchLimits, signal)
      : vm.undefined;
    if (request.http) owned.push(hostFetch);

    const setup = vm.unwrapResult(vm.evalCode(prelude, 'prelude.js'));
    owned.push(setup);
    const helpers = vm.unwrapResult(vm.callFunction(setup, vm.undefined, write, hostFetch));
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
    // A fetch still under way when the run ends must not touch the context afterwards.
    fetches.closed = true;
    for (const deferred of fetches.deferreds) if (deferred.alive) deferred.dispose();
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
 * The host side of `fetch`: takes the URL and the init as JSON from the prelude's wrapper, sends the
 * request through the run's HTTP client within what is left of the run's time, and settles the
 * sandbox's promise with the response as JSON, or rejects it with the client's message (a refusal
 * reads exactly as the guard words it; the wrapper rethrows it as a TypeError, as fetch would).
 */
function newHostFetch(
  vm: QuickJSContext,
  http: HttpClient,
  deadline: number,
  fetches: HostFetches,
  limits: FetchLimits,
  signal: AbortSignal | undefined,
): QuickJSHandle {
  let calls = 0;
  return vm.newFunction('fetch', (urlHandle, initHandle) => {
    const deferred = vm.newPromise();
    fetches.deferreds.add(deferred);
    // A promise leaves the set only once settled; whatever is left is disposed when the run ends.
    const reject = (message: string) => {
      if (fetches.closed) return;
      const error = vm.newError(message);
      try {
        deferred.reject(error);
      } finally {
        error.dispose();
      }
      fetches.deferreds.delete(deferred);
    };
    calls += 1;
    if (calls > limits.maxFetches) {
      reject(`fetch: at most ${limits.maxFetches} requests per run`);
      return deferred.handle;
    }
    if (vm.typeof(urlHandle) !== 'string' || vm.typeof(initHandle) !== 'string') {
      reject('fetch: invalid arguments');
      return deferred.handle;
    }
    const url = vm.getString(urlHandle);
    let init: FetchInit;
    try {
      init = fetchInitOf(vm.getString(initHandle));
    } catch {
      reject('fetch: invalid options');
      return deferred.handle;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      reject('fetch: the function has no time left');
      return deferred.handle;
    }
    // The signal is not part of the port yet; the guarded client honors it when given.
    const outbound: HttpRequest & { signal?: AbortSignal } = {
      url,
      method: init.method,
      headers: init.headers,
      ...(init.body === undefined ? {} : { body: init.body }),
      timeoutInMs: remaining + fetchGraceInMs,
      maxResponseBytes: limits.maxResponseBytes,
      ...(signal ? { signal } : {}),
    };
    const work: Promise<void> = http
      .request(outbound)
      .then(
        (response) => {
          if (fetches.closed) return;
          const answer = JSON.stringify({
            status: response.status,
            statusText: STATUS_CODES[response.status] ?? '',
            url,
            headers: Object.fromEntries(
              Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), value]),
            ),
            body: decodeBody(response.body, response.headers['content-type']),
          });
          const handle = vm.newString(answer);
          try {
            deferred.resolve(handle);
          } finally {
            handle.dispose();
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
  });
}
