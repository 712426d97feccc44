/**
 * One Lambda function of the bundle mode: its artifact loaded in a worker thread of its own
 * (./lambda-runtime.cjs), created by its first invocation (a cold start), with the environment the
 * template gives it and nothing of this process's. A function whose init fails, or whose
 * invocation runs past its time-out, loses its thread, as Lambda discards such a sandbox; the next
 * invocation starts a new one.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../emulators/constants';

/** What a function answers when its handler throws or its init fails: Lambda's error shape. */
export interface LambdaErrorShape {
  errorType: string;
  errorMessage: string;
  trace: string[];
}

/** An invocation that failed as Lambda reports it: `name` is the errorType. */
export class LambdaInvocationError extends Error {
  readonly status = 502;
  constructor(
    readonly functionId: string,
    readonly shape: LambdaErrorShape,
  ) {
    super(shape.errorMessage);
    this.name = shape.errorType;
    this.stack = shape.trace.join('\n');
  }
}

/** Where a streamed invocation's bytes go, as the response stream writes them. */
export interface StreamListener {
  contentType(type: string): void;
  chunk(bytes: Uint8Array): void;
  end(): void;
}

export interface BundleFunctionOptions {
  id: string;
  /** The asset folder: index.js, its side files, node_modules. */
  taskRoot: string;
  environment: Record<string, string>;
  memoryInMb: number;
  timeoutInSeconds: number;
  /** Where the runtime's SDK (`@aws-sdk/*`) resolves from: the project's node_modules. */
  runtimeSdkDir: string;
  /**
   * A thread with no invocation for this long is ended, as Lambda reclaims idle instances, so that
   * the memory of the process follows the functions in use. Default 2 minutes.
   */
  idleTimeoutInMs?: number;
}

type Message =
  | { type: 'ready'; initError?: LambdaErrorShape }
  | { type: 'result'; id: string; result: unknown }
  | { type: 'error'; id: string; error: LambdaErrorShape; init?: boolean }
  | { type: 'contentType'; id: string; contentType: string }
  | { type: 'chunk'; id: string; bytes: Uint8Array }
  | { type: 'end'; id: string };

interface Pending {
  worker: Worker;
  resolve(value: unknown): void;
  reject(error: Error): void;
  stream?: StreamListener;
}

const runtimeFile = fileURLToPath(new URL('./lambda-runtime.cjs', import.meta.url));
const hooksFile = fileURLToPath(new URL('./resolve-hooks.mjs', import.meta.url));

export class BundleFunction {
  private worker: Worker | undefined;
  /** Resolves when the thread has loaded the bundle (its init), whether or not that failed. */
  private ready: Promise<void> = Promise.resolve();
  private readonly pending = new Map<string, Pending>();
  private idleTimer: NodeJS.Timeout | undefined;
  /** Cold starts so far: each is a new thread. */
  coldStarts = 0;

  constructor(readonly options: BundleFunctionOptions) {}

  get functionArn(): string {
    return `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${this.options.id}`;
  }

  /** Invokes the handler with `event`; resolves to what it returns. */
  invoke(event: unknown): Promise<unknown> {
    return this.send(event);
  }

  /** Invokes a streamified handler; the response stream's bytes go to `stream`. */
  async invokeStreaming(event: unknown, stream: StreamListener): Promise<void> {
    await this.send(event, stream);
  }

  /** Ends the thread, if any; invocations under way fail. */
  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    this.coldStarts += 1;
    const { taskRoot, environment, runtimeSdkDir } = this.options;
    const worker = new Worker(runtimeFile, {
      env: environment,
      // The host's flags (a TypeScript loader under tests) are no business of the function's.
      execArgv: [],
      argv: [],
      workerData: { taskRoot, handlerFile: 'index.js', runtimeSdkDir, hooksFile },
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryInMb },
      stdout: false,
      stderr: false,
    });
    let initDone: () => void = () => undefined;
    this.ready = new Promise<void>((resolve) => {
      initDone = resolve;
    });
    worker.on('message', (message: Message) => {
      if (message.type === 'ready') initDone();
      else this.receive(worker, message);
    });
    worker.once('exit', () => initDone());
    worker.on('error', (error) => this.lose(worker, error));
    worker.on('exit', (code) => this.lose(worker, new Error(`The function's thread exited (code ${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** The time-out counts from the end of the init, which Lambda limits apart. */
  private async send(event: unknown, stream?: StreamListener): Promise<unknown> {
    const worker = this.thread();
    clearTimeout(this.idleTimer);
    await this.ready;
    const id = randomUUID();
    const { timeoutInSeconds, memoryInMb } = this.options;
    const context = {
      functionName: this.options.id,
      functionVersion: '$LATEST',
      invokedFunctionArn: this.functionArn,
      memoryLimitInMB: String(memoryInMb),
      awsRequestId: id,
      logGroupName: `/aws/lambda/${this.options.id}`,
      logStreamName: 'local',
      deadlineInMs: Date.now() + timeoutInSeconds * 1000,
    };
    return new Promise<unknown>((resolve, reject) => {
      // Lambda ends an invocation at its time-out and discards the sandbox it ran in.
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new LambdaInvocationError(this.options.id, {
            errorType: 'Sandbox.Timedout',
            errorMessage: `Task timed out after ${timeoutInSeconds.toFixed(2)} seconds`,
            trace: [],
          }),
        );
        if (this.worker === worker) void this.stop();
      }, timeoutInSeconds * 1000);
      timer.unref();
      const settle =
        <T>(done: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          this.pending.delete(id);
          this.armIdleTimer(worker);
          done(value);
        };
      this.pending.set(id, { worker, resolve: settle(resolve), reject: settle(reject), stream });
      worker.postMessage({ type: 'invoke', id, event, context, streaming: stream !== undefined });
    });
  }

  private armIdleTimer(worker: Worker): void {
    clearTimeout(this.idleTimer);
    if (this.pending.size > 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.worker === worker && this.pending.size === 0) void this.stop();
    }, this.options.idleTimeoutInMs ?? 120_000);
    this.idleTimer.unref();
  }

  private receive(worker: Worker, message: Exclude<Message, { type: 'ready' }>): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'result') pending.resolve(message.result);
    else if (message.type === 'error') {
      // A failed init leaves nothing to invoke: the next invocation starts afresh.
      if (message.init && this.worker === worker) void this.stop();
      pending.reject(new LambdaInvocationError(this.options.id, message.error));
    } else if (message.type === 'contentType') pending.stream?.contentType(message.contentType);
    else if (message.type === 'chunk') pending.stream?.chunk(message.bytes);
    else {
      pending.stream?.end();
      pending.resolve(undefined);
    }
  }

  private lose(worker: Worker, error: Error): void {
    if (this.worker === worker) this.worker = undefined;
    for (const [id, pending] of this.pending) {
      if (pending.worker !== worker) continue;
      this.pending.delete(id);
      pending.reject(
        new LambdaInvocationError(this.options.id, {
          errorType: 'Runtime.ExitError',
          errorMessage: error.message,
          trace: String(error.stack ?? '').split('\n'),
        }),
      );
    }
  }
}
