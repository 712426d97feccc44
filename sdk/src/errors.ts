/** The codes of the service's error bodies that a caller can act on, and the client's own. */
export type WorkflowErrorCode =
  | 'UNAUTHORIZED'
  | 'TIMEOUT'
  | 'RATE_LIMIT_EXCEEDED'
  /** The workspace has as many runs in progress as its plan allows (429, with `Retry-After`). */
  | 'CONCURRENCY_LIMIT_EXCEEDED'
  | 'USAGE_LIMIT_EXCEEDED'
  | 'EXECUTION_ERROR'
  | 'INVALID_JSON'
  | 'VALIDATION_ERROR'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INTERNAL_ERROR'
  /** The service could not be reached (refused connection, DNS failure, reset). */
  | 'NETWORK_ERROR'
  /** The service answered something that is not the JSON or event stream it should send. */
  | 'INVALID_RESPONSE';

export interface WorkflowClientErrorOptions {
  /** Validation problems, as the service sends them (`[{path, message}]`). */
  details?: unknown;
  /** The run's result when a run failed (code `EXECUTION_ERROR`): `{success: false, error, metadata, ...}`. */
  result?: unknown;
  /** How long the service asked to wait before the next request (from `Retry-After`), in ms. */
  retryAfterInMs?: number;
  cause?: unknown;
}

/**
 * The one error the client raises. `code` is one of {@link WorkflowErrorCode} (or a newer code the
 * service sends), `status` the HTTP status when the service answered.
 */
export class WorkflowClientError extends Error {
  code?: WorkflowErrorCode | (string & {});
  status?: number;
  details?: unknown;
  result?: unknown;
  retryAfterInMs?: number;

  constructor(
    message: string,
    code?: WorkflowErrorCode | (string & {}),
    status?: number,
    options: WorkflowClientErrorOptions = {},
  ) {
    super(message);
    this.name = 'WorkflowClientError';
    this.code = code;
    this.status = status;
    if (options.details !== undefined) this.details = options.details;
    if (options.result !== undefined) this.result = options.result;
    if (options.retryAfterInMs !== undefined) this.retryAfterInMs = options.retryAfterInMs;
    // Set by hand: `Error(message, {cause})` is Node 16.9+.
    if (options.cause !== undefined) Object.defineProperty(this, 'cause', { value: options.cause });
  }
}

/** The code for an answer whose body named none. */
export function codeForStatus(status: number): WorkflowErrorCode | undefined {
  const codes: Record<number, WorkflowErrorCode> = {
    400: 'VALIDATION_ERROR',
    401: 'UNAUTHORIZED',
    402: 'USAGE_LIMIT_EXCEEDED',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    408: 'TIMEOUT',
    409: 'CONFLICT',
    429: 'RATE_LIMIT_EXCEEDED',
  };
  return codes[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : undefined);
}
