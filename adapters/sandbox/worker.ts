/**
 * A sandbox worker thread: runs one function at a time in QuickJS for the pool (pool.ts) and
 * answers with its result. Loaded on the main thread it does nothing, so a Lambda bundle that
 * carries it can start itself as the worker (see pool.ts).
 */
import { isMainThread, type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { HttpClient, HttpResponse } from '../../core/net/http';
import { createQuickJsCodeRunner, SandboxError, sandboxHeapInBytes } from './quickjs';
import {
  type FromWorker,
  type OutboundRequest,
  type RunMessage,
  type SandboxWorkerData,
  sandboxWorkerRole,
  type ToWorker,
} from './worker-protocol';

interface PendingFetch {
  resolve: (response: HttpResponse) => void;
  reject: (error: Error) => void;
}

function serve(port: MessagePort, data: SandboxWorkerData): void {
  const interrupt = new Int32Array(data.interrupt);
  const ready = new Int32Array(data.ready);
  let currentRunId = 0;
  const runner = createQuickJsCodeRunner({
    heapLimitInBytes: data.heapLimitInBytes,
    maxStdoutInBytes: data.maxStdoutInBytes,
    maxFetchesPerRun: data.maxFetchesPerRun,
    maxFetchResponseBytes: data.maxFetchResponseBytes,
    interruptRequested: () => Atomics.load(interrupt, 0) === currentRunId,
    prepareAhead: true,
    onIdle: () => Atomics.store(ready, 0, 1),
  });
  const fetches = new Map<number, PendingFetch>();
  let lastFetchId = 0;
  const post = (message: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);

  /** The sandbox's `fetch` asks the pool, whose HTTP client (the guard) lives on the main thread. */
  const httpFor = (runId: number): HttpClient => ({
    request({ signal: _signal, ...request }): Promise<HttpResponse> {
      const fetchId = ++lastFetchId;
      return new Promise((resolve, reject) => {
        fetches.set(fetchId, { resolve, reject });
        post({ type: 'fetch', runId, fetchId, request: request satisfies OutboundRequest });
      });
    },
  });

  const run = async (message: RunMessage): Promise<void> => {
    currentRunId = message.runId;
    try {
      const { result, stdout } = await runner.run({
        code: message.code,
        timeoutInMs: message.timeoutInMs,
        memoryLimitInBytes: message.memoryLimitInBytes,
        maxResultBytes: message.maxResultBytes,
        http: message.withFetch ? httpFor(message.runId) : undefined,
      });
      post({ type: 'done', runId: message.runId, result, stdout, heapInBytes: sandboxHeapInBytes() });
    } catch (error) {
      const sandboxError = error instanceof SandboxError ? error : undefined;
      post({
        type: 'failed',
        runId: message.runId,
        message: sandboxError?.message ?? `The sandbox failed: ${String(error)}`,
        kind: sandboxError?.kind ?? 'error',
        heapInBytes: sandboxHeapInBytes(),
      });
    } finally {
      for (const pending of fetches.values()) pending.reject(new Error('The function has ended'));
      fetches.clear();
    }
  };

  port.on('message', (message: ToWorker) => {
    if (message.type === 'run') {
      Atomics.store(ready, 0, 0);
      void run(message);
      return;
    }
    const pending = fetches.get(message.fetchId);
    if (!pending) return;
    fetches.delete(message.fetchId);
    if (message.response) pending.resolve(message.response);
    else pending.reject(new Error(message.error ?? 'fetch failed'));
  });
}

const data = workerData as SandboxWorkerData | undefined;
if (!isMainThread && parentPort && data?.role === sandboxWorkerRole) serve(parentPort, data);
