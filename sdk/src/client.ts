import { codeForStatus, WorkflowClientError } from './errors.js';
import { withFileInputs } from './files.js';
import { ExecutionStream, eventsOf } from './stream.js';
import { chunksOf, defaultFetch, type FetchLike, type FetchResponseLike } from './transport.js';
import type {
  AsyncExecutionResult,
  JobStatus,
  RateLimitInfo,
  UsageLimits,
  WorkflowExecutionResult,
  WorkflowStatus,
} from './types.js';

export interface WorkflowClientConfig {
  /** An API key of the service (sent as `x-api-key`). */
  apiKey: string;
  /** Where the service is; `http://localhost:3000` (a local `npm start`) when not given. */
  baseUrl?: string;
  /** Time-out of each call, in ms, unless a call gives its own; 30,000 by default. */
  timeoutInMs?: number;
  /** The `fetch` to send requests with; the runtime's own, else one over `node:http` (Node 16). */
  fetch?: FetchLike;
}

export interface ExecuteOptions {
  /**
   * The workflow's input: an object of the Start block's input fields (anything else is sent as
   * `{input}`); files in it are sent as file inputs.
   */
  input?: unknown;
  /** Give up after this many ms (a streamed run: after this long without a byte); 30,000 by default. */
  timeout?: number;
  /** Answer an event stream (an {@link ExecutionStream}) instead of the result. */
  stream?: boolean;
  /** Block outputs to stream as they complete, each `<blockName>.<path>` (or `<blockId>.<path>`). */
  selectedOutputs?: string[];
  /** Queue the run and answer at once with a task id (see `getJobStatus`, `waitForJob`). */
  async?: boolean;
}

export interface RetryOptions {
  /** Retries after the first attempt; 3 by default. */
  maxRetries?: number;
  /** The wait before the first retry, in ms; 1,000 by default. */
  initialDelay?: number;
  /** The longest wait between two attempts, in ms; 30,000 by default. */
  maxDelay?: number;
  /** Each wait is this many times the one before; 2 by default. */
  backoffMultiplier?: number;
}

export interface WaitForJobOptions {
  /** Time between two reads of the job's status, in ms; 1,000 by default. */
  pollIntervalInMs?: number;
  /** Give up (code `TIMEOUT`) when the job has not finished after this many ms; 10 minutes by default. */
  timeoutInMs?: number;
}

export const defaultBaseUrl = 'http://localhost:3000';
export const defaultTimeoutInMs = 30_000;
export const retryDefaults: Required<RetryOptions> = {
  maxRetries: 3,
  initialDelay: 1_000,
  maxDelay: 30_000,
  backoffMultiplier: 2,
};

const finishedStates = new Set(['completed', 'failed', 'cancelled']);

/**
 * The client of the workflow service. Each call either answers or raises a
 * {@link WorkflowClientError}, and leaves no timer or connection behind when it returns.
 */
export class WorkflowClient {
  private apiKey: string;
  private baseUrl: string;
  private readonly timeoutInMs: number;
  private readonly fetch: FetchLike;
  private rateLimitInfo: RateLimitInfo | null = null;

  constructor(config: WorkflowClientConfig) {
    if (!config || typeof config.apiKey !== 'string') {
      throw new WorkflowClientError(
        'apiKey must be a string (an API key of the service)',
        'VALIDATION_ERROR',
      );
    }
    this.apiKey = config.apiKey;
    this.baseUrl = normalizedBaseUrl(config.baseUrl ?? defaultBaseUrl);
    this.timeoutInMs = positiveTimeout(config.timeoutInMs ?? defaultTimeoutInMs, 'timeoutInMs');
    this.fetch = config.fetch ?? defaultFetch();
  }

  setApiKey(apiKey: string): void {
    if (typeof apiKey !== 'string')
      throw new WorkflowClientError('apiKey must be a string', 'VALIDATION_ERROR');
    this.apiKey = apiKey;
  }

  setBaseUrl(baseUrl: string): void {
    this.baseUrl = normalizedBaseUrl(baseUrl);
  }

  /**
   * Runs a deployed workflow, as the interface's client does: `execute(workflowId, {input, timeout,
   * stream, selectedOutputs, async})`. Answers the run's result; with `async: true` the queued job;
   * with `stream: true` an {@link ExecutionStream}. The input may also come first, positionally:
   * `execute(workflowId, input, options)` (three arguments, so the two forms cannot be mistaken for
   * each other); with two arguments the second is always the options, and a member that is not an
   * option is refused (`VALIDATION_ERROR`) rather than taken for a field of the input.
   */
  execute(
    workflowId: string,
    options: ExecuteOptions & { async: true; stream?: false },
  ): Promise<AsyncExecutionResult>;
  execute(
    workflowId: string,
    options: ExecuteOptions & { stream: true; async?: false },
  ): Promise<ExecutionStream>;
  execute(
    workflowId: string,
    options?: ExecuteOptions & { async?: false; stream?: false },
  ): Promise<WorkflowExecutionResult>;
  execute(
    workflowId: string,
    input: unknown,
    options: PositionalOptions & { async: true; stream?: false },
  ): Promise<AsyncExecutionResult>;
  execute(
    workflowId: string,
    input: unknown,
    options: PositionalOptions & { stream: true; async?: false },
  ): Promise<ExecutionStream>;
  execute(
    workflowId: string,
    input: unknown,
    options: (PositionalOptions & { async?: false; stream?: false }) | undefined,
  ): Promise<WorkflowExecutionResult>;
  execute(
    workflowId: string,
    ...rest: [ExecuteOptions?] | [unknown, PositionalOptions | undefined]
  ): Promise<WorkflowExecutionResult | AsyncExecutionResult | ExecutionStream>;
  async execute(
    workflowId: string,
    ...rest: [ExecuteOptions?] | [unknown, PositionalOptions | undefined]
  ): Promise<WorkflowExecutionResult | AsyncExecutionResult | ExecutionStream> {
    const options = executeOptionsOf(rest);
    const path = `/api/workflows/${idInPath(workflowId, 'workflowId')}/execute`;
    const timeoutInMs = positiveTimeout(options.timeout ?? this.timeoutInMs, 'timeout');
    if (options.async && options.stream) {
      throw new WorkflowClientError('async and stream cannot both be true', 'VALIDATION_ERROR');
    }
    const body = await executeBody(options);
    if (options.stream) return this.openStream(path, body, timeoutInMs);
    const headers: Record<string, string> = options.async ? { 'x-execution-mode': 'async' } : {};
    const answer = await this.call<WorkflowExecutionResult | AsyncExecutionResult>('POST', path, {
      body,
      headers,
      timeoutInMs,
    });
    if (!options.async && (answer as WorkflowExecutionResult).success === false) {
      const result = answer as WorkflowExecutionResult;
      throw new WorkflowClientError(result.error ?? 'The workflow run failed', 'EXECUTION_ERROR', undefined, {
        result,
      });
    }
    return answer;
  }

  /**
   * `execute` with `stream: true`: the events of the run as they come. `stream(workflowId, {input,
   * selectedOutputs, timeout})`, or positionally `stream(workflowId, input, options)`.
   */
  stream(workflowId: string, options?: Omit<ExecuteOptions, 'stream' | 'async'>): Promise<ExecutionStream>;
  stream(
    workflowId: string,
    input: unknown,
    options: Omit<PositionalOptions, 'stream' | 'async'> | undefined,
  ): Promise<ExecutionStream>;
  stream(
    workflowId: string,
    ...rest: [ExecuteOptions?] | [unknown, PositionalOptions | undefined]
  ): Promise<ExecutionStream> {
    return this.execute(workflowId, { ...executeOptionsOf(rest), stream: true, async: false });
  }

  /**
   * `execute`, tried again when the service answers 429: after its `Retry-After` when it sends
   * one, else after an exponential backoff (`initialDelay` × `backoffMultiplier`^n, at most
   * `maxDelay`, ± 25 % jitter). Other errors are raised at once: a run is never sent twice unless
   * the service refused it.
   */
  executeWithRetry(
    workflowId: string,
    options: ExecuteOptions & { async: true; stream?: false },
    retryOptions?: RetryOptions,
  ): Promise<AsyncExecutionResult>;
  executeWithRetry(
    workflowId: string,
    options: ExecuteOptions & { stream: true; async?: false },
    retryOptions?: RetryOptions,
  ): Promise<ExecutionStream>;
  executeWithRetry(
    workflowId: string,
    options?: ExecuteOptions & { async?: false; stream?: false },
    retryOptions?: RetryOptions,
  ): Promise<WorkflowExecutionResult>;
  executeWithRetry(
    workflowId: string,
    input: unknown,
    options: PositionalOptions & { async: true; stream?: false },
    retryOptions: RetryOptions | undefined,
  ): Promise<AsyncExecutionResult>;
  executeWithRetry(
    workflowId: string,
    input: unknown,
    options: PositionalOptions & { stream: true; async?: false },
    retryOptions: RetryOptions | undefined,
  ): Promise<ExecutionStream>;
  executeWithRetry(
    workflowId: string,
    input: unknown,
    options: (PositionalOptions & { async?: false; stream?: false }) | undefined,
    retryOptions: RetryOptions | undefined,
  ): Promise<WorkflowExecutionResult>;
  async executeWithRetry(
    workflowId: string,
    ...rest:
      | [ExecuteOptions?, RetryOptions?]
      | [unknown, PositionalOptions | undefined, RetryOptions | undefined]
  ): Promise<WorkflowExecutionResult | AsyncExecutionResult | ExecutionStream> {
    // Four arguments: the positional form (input, options, retryOptions); else (options, retryOptions).
    const positional = rest.length === 3;
    const options = executeOptionsOf(
      positional
        ? [rest[0], rest[1] as PositionalOptions | undefined]
        : [rest[0] as ExecuteOptions | undefined],
    );
    const retryOptions = (positional ? rest[2] : rest[1]) ?? {};
    const { maxRetries, initialDelay, maxDelay, backoffMultiplier } = { ...retryDefaults, ...retryOptions };
    let delayInMs = initialDelay;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.execute(workflowId, options);
      } catch (error) {
        const refused = error instanceof WorkflowClientError && error.status === 429;
        if (!refused || attempt >= maxRetries) throw error;
        await sleep(error.retryAfterInMs ?? Math.min(maxDelay, withJitter(Math.min(delayInMs, maxDelay))));
        delayInMs *= backoffMultiplier;
      }
    }
  }

  /** The status of an asynchronous run (its job). */
  getJobStatus(taskId: string): Promise<JobStatus> {
    return this.call('GET', `/api/jobs/${idInPath(taskId, 'taskId')}`);
  }

  /** Cancels a queued or processing job; answers its status, now `cancelled`. */
  cancelJob(taskId: string): Promise<JobStatus> {
    return this.call('POST', `/api/jobs/${idInPath(taskId, 'taskId')}/cancel`);
  }

  /**
   * Reads the job's status until it is `completed`, `failed` or `cancelled`, and answers that
   * status (a failed run is answered, not raised: see its `error`).
   */
  async waitForJob(taskId: string, options: WaitForJobOptions = {}): Promise<JobStatus> {
    const pollIntervalInMs = options.pollIntervalInMs ?? 1_000;
    const timeoutInMs = positiveTimeout(options.timeoutInMs ?? 10 * 60_000, 'timeoutInMs');
    const deadline = Date.now() + timeoutInMs;
    for (;;) {
      const status = await this.getJobStatus(taskId);
      if (finishedStates.has(status.status)) return status;
      const leftInMs = deadline - Date.now();
      if (leftInMs <= 0) {
        throw new WorkflowClientError(
          `Job ${taskId} had not finished after ${timeoutInMs} ms (it is ${status.status})`,
          'TIMEOUT',
        );
      }
      await sleep(Math.min(pollIntervalInMs, leftInMs));
    }
  }

  /** Whether the workflow is deployed, when it was, and whether its draft has changed since. */
  getWorkflowStatus(workflowId: string): Promise<WorkflowStatus> {
    return this.call('GET', `/api/workflows/${idInPath(workflowId, 'workflowId')}/status`);
  }

  /**
   * True when the workflow is deployed and so ready to execute; false when it is not deployed or
   * not found. Other failures (a wrong key, the service unreachable) are raised.
   */
  async validateWorkflow(workflowId: string): Promise<boolean> {
    try {
      return (await this.getWorkflowStatus(workflowId)).isDeployed === true;
    } catch (error) {
      if (error instanceof WorkflowClientError && (error.status === 404 || error.status === 403))
        return false;
      throw error;
    }
  }

  /** The caller's rate limits (sync and async executions) and usage this period. */
  getUsageLimits(): Promise<UsageLimits> {
    return this.call('GET', '/api/users/me/usage-limits');
  }

  /** The rate-limit headers of the last answer that had them; null before any. */
  getRateLimitInfo(): RateLimitInfo | null {
    return this.rateLimitInfo ? { ...this.rateLimitInfo } : null;
  }

  // Names of the public `simstudio-ts-sdk`, so that its users only change the import.

  /**
   * `execute`, in `simstudio-ts-sdk`'s positional form `executeWorkflow(workflowId, input?,
   * options?)`; a streamed run is read to its end and answered as a result.
   */
  async executeWorkflow(
    workflowId: string,
    input?: unknown,
    options: PositionalOptions = {},
  ): Promise<WorkflowExecutionResult | AsyncExecutionResult> {
    const answer = await this.execute(workflowId, input, options);
    return answer instanceof ExecutionStream ? answer.result() : answer;
  }

  /** `executeWorkflow`, never asynchronous. */
  async executeWorkflowSync(
    workflowId: string,
    input?: unknown,
    options: PositionalOptions = {},
  ): Promise<WorkflowExecutionResult> {
    return (await this.executeWorkflow(workflowId, input, {
      ...options,
      async: false,
    })) as WorkflowExecutionResult;
  }

  private async call<T>(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; timeoutInMs?: number } = {},
  ): Promise<T> {
    const timeoutInMs = options.timeoutInMs ?? this.timeoutInMs;
    const deadline = new Deadline(timeoutInMs);
    try {
      const response = await this.send(method, path, options.body, options.headers ?? {}, deadline);
      if (response.status < 200 || response.status >= 300) throw await this.errorOf(response);
      const text = await response.text();
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new WorkflowClientError(
          `The service answered ${method} ${path} with something that is not JSON`,
          'INVALID_RESPONSE',
          response.status,
        );
      }
    } catch (error) {
      throw failureOf(error, deadline, `${method} ${path}`);
    } finally {
      deadline.clear();
    }
  }

  private async openStream(path: string, body: unknown, timeoutInMs: number): Promise<ExecutionStream> {
    const deadline = new Deadline(timeoutInMs);
    let response: FetchResponseLike;
    try {
      response = await this.send('POST', path, body, { accept: 'text/event-stream' }, deadline);
      if (response.status < 200 || response.status >= 300) throw await this.errorOf(response);
      if (!response.body) throw new WorkflowClientError('The event stream has no body', 'INVALID_RESPONSE');
    } catch (error) {
      deadline.clear();
      throw failureOf(error, deadline, `POST ${path}`);
    }
    const source = response.body;
    async function* bytes() {
      for await (const chunk of chunksOf(source)) {
        deadline.restart();
        yield chunk;
      }
    }
    async function* events() {
      try {
        yield* eventsOf(bytes());
      } catch (error) {
        throw failureOf(error, deadline, `the event stream of POST ${path}`);
      } finally {
        deadline.clear();
        // Closes the connection when the reader left early; a no-op after the end.
        deadline.abort();
      }
    }
    const close = () => {
      deadline.clear();
      deadline.abort();
    };
    return new ExecutionStream(events(), close, response.headers.get('x-execution-id') ?? undefined);
  }

  private async send(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
    deadline: Deadline,
  ): Promise<FetchResponseLike> {
    const response = await this.fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        'x-api-key': this.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: deadline.signal,
    });
    this.noteRateLimits(response);
    return response;
  }

  private noteRateLimits(response: FetchResponseLike): void {
    const limit = response.headers.get('x-ratelimit-limit');
    const remaining = response.headers.get('x-ratelimit-remaining');
    const reset = response.headers.get('x-ratelimit-reset');
    const retryAfterInMs = retryAfterOf(response);
    if (limit === null && remaining === null && reset === null && retryAfterInMs === undefined) return;
    this.rateLimitInfo = {
      limit: limit === null ? 0 : Number.parseInt(limit, 10),
      remaining: remaining === null ? 0 : Number.parseInt(remaining, 10),
      reset: reset === null ? 0 : instantOf(reset),
      ...(reset === null ? {} : { resetAt: reset }),
      ...(retryAfterInMs === undefined ? {} : { retryAfter: retryAfterInMs }),
    };
  }

  private async errorOf(response: FetchResponseLike): Promise<WorkflowClientError> {
    const text = await response.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed === 'object') body = parsed;
    } catch {
      // Not JSON (a proxy's error page): the status tells what happened.
    }
    const message =
      typeof body.error === 'string'
        ? body.error
        : `The service answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    const code = typeof body.code === 'string' ? body.code : codeForStatus(response.status);
    return new WorkflowClientError(message, code, response.status, {
      details: body.details,
      result: 'success' in body ? body : undefined,
      retryAfterInMs: retryAfterOf(response),
    });
  }
}

/** A call's time-out: aborts the request when it fires; cleared when the call ends. */
class Deadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  expired = false;

  constructor(readonly timeoutInMs: number) {
    this.restart();
  }

  get signal() {
    return this.controller.signal;
  }

  restart(): void {
    this.clear();
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort();
    }, this.timeoutInMs);
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  abort(): void {
    this.controller.abort();
  }
}

function failureOf(error: unknown, deadline: Deadline, what: string): WorkflowClientError {
  if (deadline.expired) {
    return new WorkflowClientError(
      `${what} timed out after ${deadline.timeoutInMs} ms`,
      'TIMEOUT',
      undefined,
      {
        cause: error,
      },
    );
  }
  if (error instanceof WorkflowClientError) return error;
  const reason = error instanceof Error ? describe(error) : String(error);
  return new WorkflowClientError(`${what} failed: ${reason}`, 'NETWORK_ERROR', undefined, { cause: error });
}

/** The message of an error and of its cause (fetch hides the socket's error in `cause`). */
function describe(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

/** The options of the positional form, whose input is an argument of its own. */
export type PositionalOptions = Omit<ExecuteOptions, 'input'>;

const executeOptionNames: ReadonlySet<string> = new Set<keyof ExecuteOptions>([
  'input',
  'timeout',
  'stream',
  'selectedOutputs',
  'async',
]);

/**
 * The options of a call in either form: `[options]` (the interface's) or `[input, options]`. An
 * options object with a member that is no option is refused, so that `execute(id, {name: 'Ada'})`
 * (an input where the options go) fails loudly instead of running the workflow without its input.
 */
function executeOptionsOf(
  rest: [ExecuteOptions?] | [unknown, PositionalOptions | undefined],
): ExecuteOptions {
  if (rest.length >= 2) {
    const options = checkedOptions(rest[1], 'options', ['input']);
    return { ...options, input: rest[0] };
  }
  return checkedOptions(rest[0], 'options', []);
}

function checkedOptions(value: unknown, name: string, refused: string[]): ExecuteOptions {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new WorkflowClientError(
      `execute ${name} must be an object such as {input, timeout, stream, selectedOutputs, async}`,
      'VALIDATION_ERROR',
    );
  }
  const unknown = Object.keys(value).filter((key) => !executeOptionNames.has(key) || refused.includes(key));
  if (unknown.length > 0) {
    throw new WorkflowClientError(
      `execute ${name} take input, timeout, stream, selectedOutputs and async, not ${unknown.join(', ')}: ` +
        `send the workflow's fields as execute(workflowId, {input: {...}}), or as execute(workflowId, input, options)`,
      'VALIDATION_ERROR',
    );
  }
  return value as ExecuteOptions;
}

async function executeBody(options: ExecuteOptions): Promise<Record<string, unknown>> {
  const input = options.input;
  const fields =
    input === undefined || input === null
      ? {}
      : typeof input === 'object' && !Array.isArray(input) && !isBinary(input)
        ? input
        : { input };
  const body = (await withFileInputs(fields)) as Record<string, unknown>;
  if (options.stream !== undefined) body.stream = options.stream;
  if (options.selectedOutputs !== undefined) body.selectedOutputs = options.selectedOutputs;
  return body;
}

function isBinary(value: object): boolean {
  return (
    value instanceof Uint8Array ||
    value instanceof ArrayBuffer ||
    typeof (value as { arrayBuffer?: unknown }).arrayBuffer === 'function'
  );
}

function retryAfterOf(response: FetchResponseLike): number | undefined {
  const header = response.headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Unix ms of an `X-RateLimit-Reset` value: an ISO 8601 timestamp, or Unix seconds or ms. */
function instantOf(value: string): number {
  if (/^\d+$/.test(value.trim())) {
    const number = Number(value);
    return number < 1e12 ? number * 1000 : number;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? 0 : at;
}

/** ± 25 %. */
function withJitter(delayInMs: number): number {
  return Math.round(delayInMs * (0.75 + Math.random() * 0.5));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function normalizedBaseUrl(baseUrl: string): string {
  if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]/i.test(baseUrl)) {
    throw new WorkflowClientError(
      `baseUrl must be an http(s) address such as https://workflows.example.com, not ${JSON.stringify(baseUrl)}`,
      'VALIDATION_ERROR',
    );
  }
  let normalized = baseUrl;
  while (normalized.endsWith('/')) normalized = normalized.slice(0, -1);
  return normalized;
}

function positiveTimeout(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new WorkflowClientError(
      `${name} must be a positive number of ms, not ${value}`,
      'VALIDATION_ERROR',
    );
  }
  return value;
}

function idInPath(id: string, name: string): string {
  if (typeof id !== 'string' || id.trim() === '') {
    throw new WorkflowClientError(`${name} must be a non-empty string`, 'VALIDATION_ERROR');
  }
  return encodeURIComponent(id);
}
