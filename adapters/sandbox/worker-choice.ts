/**
 * Which of the sandbox pool's idle workers takes the next run (./pool.ts). Apart from the pool,
 * which starts, feeds and retires the workers, so the rule is read and tested on its own.
 */

/** What choosing a worker for a run reads of each. */
export interface WorkerState {
  active?: unknown;
  /** The worker's flag (SandboxWorkerData.ready): 1 while it waits with a sandbox prepared. */
  ready: Int32Array;
  /** When it was last given a run, as a count of runs given out. */
  lastStarted: number;
}

/**
 * The idle worker that takes the next run. One run at a time (a sync run every few milliseconds),
 * the worker that ran last answers sooner than another would, its core's caches still warm
 * (bench/sandbox-call.ts, a call every 3 ms: p50 0.26 to 0.35 ms against 0.34 to 0.45). But a worker makes
 * the next run's sandbox after answering, and a run that comes at once after another (function
 * blocks one after the other) would wait for that: so a worker whose sandbox is ready goes first,
 * the one that ran last among them, else the one whose last run started longest ago, the likeliest
 * to be done preparing.
 */
export function chooseWorker<T extends WorkerState>(workers: Iterable<T>): T | undefined {
  let readiest: T | undefined;
  let oldest: T | undefined;
  for (const worker of workers) {
    if (worker.active) continue;
    if (Atomics.load(worker.ready, 0) === 1) {
      if (!readiest || worker.lastStarted > readiest.lastStarted) readiest = worker;
    } else if (!oldest || worker.lastStarted < oldest.lastStarted) {
      oldest = worker;
    }
  }
  return readiest ?? oldest;
}
