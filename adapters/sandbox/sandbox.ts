/**
 * A sandbox: a QuickJS runtime and its one context with the globals every run has (timers,
 * `console`, and `fetch` when the run brings an HTTP client), made fresh for each run, possibly
 * ahead of it, and disposed of after it.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { installConsole } from './console';
import { type FetchLimits, type FetchRun, type HostFetches, newSandboxFetch } from './fetch';
import type { Intrinsics } from './handles';
import type { LoadedModule } from './module';
import { installTimers, type Timer } from './timers';

/** A runtime and its one context: what each run gets fresh. */
export interface Sandbox {
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

export function newFetch(
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
export function newSandbox(
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

export function release(sandbox: Sandbox): void {
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
