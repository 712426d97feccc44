/**
 * The function-block sandbox off the main thread: a pool of worker threads, each running one
 * function at a time in QuickJS (worker.ts), with a queue in front. The main thread keeps serving
 * requests while user code runs, so a runaway or heavy function delays nobody else's request.
 *
 * - Time: the sandbox's interrupt handler stops a function at its time limit. A worker that has not
 *   answered `terminateGraceInMs` later (stuck where the handler is not called) is terminated and
 *   replaced. A run waits in the queue at most its own time limit.
 * - Fairness: each workspace has a queue of its own, and the queues are served in turn, one run
 *   each; a workspace holds at most `maxBusyPerWorkspace` workers at once (half the pool by
 *   default), so one whose functions loop until their time limit leaves the other workers to the
 *   rest, whose runs start as soon as one is free instead of behind the whole backlog.
 * - Memory: each worker has its own WebAssembly heap with a hard ceiling and V8 resource limits. A
 *   worker runs one function at a time, so its heap ceiling is that run's real memory cap: the
 *   sandbox's own sampling of memory use only runs between instructions, and a loop of a few large
 *   allocations can outpace it. A heap never shrinks, so a worker whose heap grew past
 *   `recycleHeapAboveBytes`, or whose run ran out of memory, is retired and its memory given back.
 * - Cancellation: the run's signal sets a word in memory shared with the worker, which its
 *   interrupt handler reads even while user code loops.
 * - `fetch` in the sandbox is answered here, on the main thread, by the request's HTTP client (the
 *   guard), so the worker holds no network access of its own.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { CodeRunner, CodeRunRequest, CodeRunResult } from '../../core/engine/types';
import { startRoleWorker } from '../worker-threads';
import { FairQueue } from './fair-queue';
import { SandboxError } from './sandbox-error';
import { chooseWorker, type WorkerState } from './worker-choice';
import './worker';
import {
  type FetchedMessage,
  type FetchMessage,
  type FromWorker,
  type RunMessage,
  type SandboxWorkerData,
  sandboxWorkerRole,
} from './worker-protocol';

export interface SandboxPoolOptions {
  /** Worker threads (default: the machine's cores, at least 2). */
  size?: number;
  /** Runs that may wait for a worker; one more is refused at once (default 1,000). */
  maxQueuedRuns?: number;
  /** Runs of one workspace that may wait for a worker (default 250): one workspace cannot fill the queue. */
  maxQueuedRunsPerWorkspace?: number;
  /**
   * Workers one workspace's runs may hold at once (default: half the pool, rounded up, at least 1).
   * Runs that name no workspace (tools, benchmarks) may use the whole pool.
   */
  maxBusyPerWorkspace?: number;
  /** How long past its time limit a worker may take to stop before it is terminated (default 1 s). */
  terminateGraceInMs?: number;
  /** A worker whose WebAssembly heap grew beyond this is replaced after its run (default 64 MB). */
  recycleHeapAboveBytes?: number;
  /**
   * Ceiling of each worker's WebAssembly heap (default 96 MB): a run's memory limit plus room for
   * the runtime itself and the next run's prepared sandbox.
   */
  heapLimitInBytes?: number;
  /** V8 heap of each worker, in MB (default 128): what the host side of a run may use. */
  workerHeapLimitInMb?: number;
  maxStdoutInBytes?: number;
  maxFetchesPerRun?: number;
  maxFetchResponseBytes?: number;
}

export interface SandboxPoolStats {
  workers: number;
  busy: number;
  /** Idle workers with the next run's sandbox prepared. */
  ready: number;
  queued: number;
  /** Workers started since the pool was made: more than `workers` means some were replaced. */
  workersStarted: number;
}

export interface SandboxPool extends CodeRunner {
  stats(): SandboxPoolStats;
  /** Terminates every worker; queued runs fail as cancelled. */
  close(): Promise<void>;
}

interface Job {
  request: CodeRunRequest;
  /** The workspace whose queue and share the job is in; '' for runs that name none. */
  workspace: string;
  resolve: (result: CodeRunResult) => void;
  reject: (error: SandboxError) => void;
  settled: boolean;
  queueTimer?: NodeJS.Timeout;
  onAbort?: () => void;
}

/** A job on a worker. */
interface Active {
  job: Job;
  runId: number;
  deadlineTimer?: NodeJS.Timeout;
  fetches: Set<AbortController>;
}

interface Slot extends WorkerState {
  worker: Worker;
  interrupt: Int32Array;
  active?: Active;
  retired: boolean;
}

const defaultMaxQueuedRuns = 1000;
const defaultMaxQueuedRunsPerWorkspace = 250;
const defaultTerminateGraceInMs = 1000;
const defaultRecycleHeapAboveBytes = 64 * 1024 * 1024;
const defaultHeapLimitInBytes = 96 * 1024 * 1024;
const defaultWorkerHeapLimitInMb = 128;

/** The sandbox worker: worker.ts, in this bundle or from the sources (adapters/worker-threads.ts). */
function newWorker(workerData: SandboxWorkerData, heapLimitInMb: number): Worker {
  return startRoleWorker({
    sourceBootstrap: () => new URL('./worker-bootstrap.mjs', import.meta.url),
    workerData,
    heapLimitInMb,
  });
}

export function createSandboxPool(options: SandboxPoolOptions = {}): SandboxPool {
  const size = Math.max(1, options.size ?? Math.max(2, availableParallelism()));
  const maxQueuedRuns = options.maxQueuedRuns ?? defaultMaxQueuedRuns;
  const maxQueuedPerWorkspace = options.maxQueuedRunsPerWorkspace ?? defaultMaxQueuedRunsPerWorkspace;
  const maxBusyPerWorkspace = Math.max(1, options.maxBusyPerWorkspace ?? Math.ceil(size / 2));
  const graceInMs = options.terminateGraceInMs ?? defaultTerminateGraceInMs;
  const recycleAbove = options.recycleHeapAboveBytes ?? defaultRecycleHeapAboveBytes;
  const workerHeapLimitInMb = options.workerHeapLimitInMb ?? defaultWorkerHeapLimitInMb;
  const workerData: Omit<SandboxWorkerData, 'interrupt' | 'ready'> = {
    role: sandboxWorkerRole,
    heapLimitInBytes: options.heapLimitInBytes ?? defaultHeapLimitInBytes,
    maxStdoutInBytes: options.maxStdoutInBytes,
    maxFetchesPerRun: options.maxFetchesPerRun,
    maxFetchResponseBytes: options.maxFetchResponseBytes,
  };
  const slots = new Set<Slot>();
  const queue = new FairQueue<Job>(maxBusyPerWorkspace, size);
  let lastRunId = 0;
  let runsStarted = 0;
  let workersStarted = 0;
  let closed = false;

  const settle = (job: Job, outcome: { result: CodeRunResult } | { error: SandboxError }): void => {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.queueTimer);
    if (job.onAbort) job.request.signal?.removeEventListener('abort', job.onAbort);
    if ('error' in outcome) job.reject(outcome.error);
    else job.resolve(outcome.result);
  };

  const retire = (slot: Slot): void => {
    if (slot.retired) return;
    slot.retired = true;
    slots.delete(slot);
    void slot.worker.terminate();
  };

  /** Ends the slot's job, if any, with `outcome`; the slot is free again (or gone) for the next run. */
  const release = (slot: Slot, outcome?: Parameters<typeof settle>[1]): void => {
    const active = slot.active;
    if (!active) return;
    slot.active = undefined;
    queue.finished(active.job);
    clearTimeout(active.deadlineTimer);
    for (const controller of active.fetches) controller.abort();
    if (outcome) settle(active.job, outcome);
    if (!slot.retired) slot.worker.unref();
    dispatch();
  };

  const spawn = (): Slot => {
    const interrupt = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const ready = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const worker = newWorker({ ...workerData, interrupt, ready }, workerHeapLimitInMb);
    const slot: Slot = {
      worker,
      interrupt: new Int32Array(interrupt),
      ready: new Int32Array(ready),
      lastStarted: 0,
      retired: false,
    };
    workersStarted += 1;
    worker.on('message', (message: FromWorker) => onMessage(slot, message));
    // A worker that dies (its V8 heap limit, a crash) fails its run; the next dispatch replaces it.
    worker.on('error', (error: Error & { code?: string }) => {
      retire(slot);
      release(slot, {
        error:
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new SandboxError('Function ran out of memory (the worker heap limit)', 'memory')
            : new SandboxError(`The sandbox failed: ${error.message}`),
      });
    });
    worker.on('exit', () => {
      retire(slot);
      release(slot, { error: new SandboxError('The sandbox stopped unexpectedly') });
    });
    worker.unref();
    slots.add(slot);
    return slot;
  };

  const onMessage = (slot: Slot, message: FromWorker): void => {
    const active = slot.active;
    if (!active || message.runId !== active.runId) return;
    if (message.type === 'fetch') {
      answerFetch(slot, active, message);
      return;
    }
    // A heap never shrinks: a worker whose heap grew is replaced, and its memory given back.
    if (message.heapInBytes > recycleAbove || (message.type === 'failed' && message.kind === 'memory')) {
      retire(slot);
    }
    release(
      slot,
      message.type === 'done'
        ? { result: { result: message.result, stdout: message.stdout } }
        : { error: new SandboxError(message.message, message.kind) },
    );
  };

  const answerFetch = (slot: Slot, active: Active, message: FetchMessage): void => {
    const answer = (reply: FetchedMessage) => {
      if (slot.active === active) slot.worker.postMessage(reply);
    };
    const { http, signal } = active.job.request;
    if (!http) {
      answer({ type: 'fetched', fetchId: message.fetchId, error: 'fetch is not available' });
      return;
    }
    const controller = new AbortController();
    active.fetches.add(controller);
    http
      .request({
        ...message.request,
        signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
      })
      .then(
        (response) => answer({ type: 'fetched', fetchId: message.fetchId, response }),
        (error: unknown) =>
          answer({
            type: 'fetched',
            fetchId: message.fetchId,
            error: error instanceof Error ? error.message : String(error),
          }),
      )
      .finally(() => active.fetches.delete(controller));
  };

  /**
   * Cuts off a worker that has not answered in time: its interrupt handler is not running. The error
   * is made only then: capturing an Error's stack for every run cost more than the rest of `start`.
   */
  const cutOffAfter = (slot: Slot, active: Active, delayInMs: number, error: () => SandboxError): void => {
    clearTimeout(active.deadlineTimer);
    active.deadlineTimer = setTimeout(() => {
      if (slot.active !== active) return;
      retire(slot);
      release(slot, { error: error() });
    }, delayInMs);
  };

  const start = (slot: Slot, job: Job): void => {
    clearTimeout(job.queueTimer);
    const { request } = job;
    const active: Active = { job, runId: ++lastRunId, fetches: new Set() };
    slot.active = active;
    queue.started(job);
    // The worker clears its ready flag when it takes the run, and sets it once the next sandbox is made.
    slot.lastStarted = ++runsStarted;
    slot.worker.ref();
    cutOffAfter(
      slot,
      active,
      request.timeoutInMs + graceInMs,
      () => new SandboxError(`Function timed out after ${request.timeoutInMs} ms`, 'timeout'),
    );
    const message: RunMessage = {
      type: 'run',
      runId: active.runId,
      code: request.code,
      timeoutInMs: request.timeoutInMs,
      memoryLimitInBytes: request.memoryLimitInBytes,
      maxResultBytes: request.maxResultBytes,
      withFetch: request.http !== undefined,
    };
    slot.worker.postMessage(message);
  };

  const freeSlot = (): Slot | undefined => {
    // The whole pool starts with the first run: a worker takes a few hundred milliseconds to start.
    while (slots.size < size) spawn();
    return chooseWorker(slots);
  };

  function dispatch(): void {
    while (queue.size > 0 && !closed) {
      const slot = freeSlot();
      if (!slot) return;
      const job = queue.next();
      if (!job) return;
      if (!job.settled) start(slot, job);
    }
  }

  const cancel = (job: Job): void => {
    const cancelled = new SandboxError('Function was cancelled', 'cancelled');
    queue.remove(job);
    for (const slot of slots) {
      const active = slot.active;
      if (active?.job !== job) continue;
      // The worker notices between two instructions of user code; one that does not is cut off.
      Atomics.store(slot.interrupt, 0, active.runId);
      cutOffAfter(slot, active, graceInMs, () => cancelled);
    }
    settle(job, { error: cancelled });
  };

  const enqueue = (request: CodeRunRequest) =>
    new Promise<CodeRunResult>((resolve, reject) => {
      const job: Job = { request, workspace: request.workspaceId ?? '', resolve, reject, settled: false };
      if (request.signal) {
        job.onAbort = () => cancel(job);
        request.signal.addEventListener('abort', job.onAbort, { once: true });
      }
      // Waiting for a worker may take as long as the run itself may, no longer.
      job.queueTimer = setTimeout(() => {
        if (!queue.remove(job)) return;
        const message = `Function timed out after ${request.timeoutInMs} ms waiting for a free sandbox`;
        settle(job, { error: new SandboxError(message, 'timeout') });
      }, request.timeoutInMs);
      queue.push(job);
      dispatch();
    });

  return {
    run(request) {
      if (closed) return Promise.reject(new SandboxError('The sandbox is closed', 'cancelled'));
      if (request.signal?.aborted) {
        return Promise.reject(new SandboxError('Function was cancelled', 'cancelled'));
      }
      if (queue.size >= maxQueuedRuns) {
        const message = `The sandbox is busy: ${queue.size} function runs are waiting already; try again later`;
        return Promise.reject(new SandboxError(message));
      }
      const waitingOfWorkspace = queue.waitingOf(request.workspaceId ?? '');
      if (waitingOfWorkspace >= maxQueuedPerWorkspace) {
        const message = `The sandbox is busy: ${waitingOfWorkspace} function runs of this workspace are waiting already; try again later`;
        return Promise.reject(new SandboxError(message));
      }
      return enqueue(request);
    },
    stats() {
      let busy = 0;
      let ready = 0;
      for (const slot of slots) {
        if (slot.active) busy += 1;
        else if (Atomics.load(slot.ready, 0) === 1) ready += 1;
      }
      return { workers: slots.size, busy, ready, queued: queue.size, workersStarted };
    },
    async close() {
      closed = true;
      const closedError = new SandboxError('The sandbox is closed', 'cancelled');
      for (const job of queue.drain()) settle(job, { error: closedError });
      const workers = [...slots].map((slot) => slot.worker);
      for (const slot of [...slots]) {
        retire(slot);
        release(slot, { error: closedError });
      }
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
