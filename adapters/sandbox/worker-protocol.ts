/**
 * The messages between the sandbox pool (main thread) and a sandbox worker thread. Everything here
 * crosses a thread boundary by structured clone, so it is plain data: no functions, no signals.
 */
import type { HttpRequest, HttpResponse } from '../../core/net/http';
import type { SandboxError } from './sandbox-error';

/** `workerData.role` of a sandbox worker; a bundle that is started as a worker checks for it. */
export const sandboxWorkerRole = 'workflow-sandbox-worker';

export interface SandboxWorkerData {
  role: typeof sandboxWorkerRole;
  /**
   * One Int32: the id of a run the pool wants stopped. A worker busy in user code cannot read
   * messages, but its interrupt handler reads this between instructions.
   */
  interrupt: SharedArrayBuffer;
  /**
   * One Int32: 1 while the worker waits with the next run's sandbox prepared, 0 while it runs or
   * prepares. Set by the worker without a message, so that telling costs no thread a wake-up.
   */
  ready: SharedArrayBuffer;
  heapLimitInBytes?: number;
  maxStdoutInBytes?: number;
  maxFetchesPerRun?: number;
  maxFetchResponseBytes?: number;
}

export interface RunMessage {
  type: 'run';
  runId: number;
  code: string;
  timeoutInMs: number;
  memoryLimitInBytes: number;
  maxResultBytes?: number;
  /** The sandbox offers `fetch`, each call answered by the pool's HTTP client (the guard). */
  withFetch: boolean;
}

export interface FetchedMessage {
  type: 'fetched';
  fetchId: number;
  response?: HttpResponse;
  error?: string;
}

export type ToWorker = RunMessage | FetchedMessage;

export type OutboundRequest = Omit<HttpRequest, 'signal'>;

export interface FetchMessage {
  type: 'fetch';
  runId: number;
  fetchId: number;
  request: OutboundRequest;
}

export interface DoneMessage {
  type: 'done';
  runId: number;
  result: unknown;
  stdout: string;
  /** The worker's WebAssembly heap after the run: a heap grown large is given back by retiring the worker. */
  heapInBytes: number;
}

export interface FailedMessage {
  type: 'failed';
  runId: number;
  message: string;
  kind: SandboxError['kind'];
  heapInBytes: number;
}

export type FromWorker = FetchMessage | DoneMessage | FailedMessage;
