/**
 * The typed error hierarchy. Every error a caller may see carries its HTTP status and wire code;
 * anything else is an internal failure and is answered as a plain 500 with no internals.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ServiceErrorOptions {
  cause?: unknown;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
}

/**
 * Marks service errors across bundles: a function whose streamed runs live in a second bundle
 * (stream-run.js) has two copies of this module, so `instanceof` alone misses the other copy's errors.
 */
const serviceErrorBrand = Symbol.for('workflow-service.ServiceError');

/** Each class names itself: minified bundles rename classes, and errors are told apart by `name`. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly [serviceErrorBrand] = true;
  readonly statusCode: number;
  readonly code: string;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;

  constructor(message: string, statusCode: number, code: string, options: ServiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.statusCode = statusCode;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export class InvalidJsonError extends ServiceError {
  override name = 'InvalidJsonError';
  constructor(message = 'Request body is not valid JSON', options?: ServiceErrorOptions) {
    super(message, 400, 'INVALID_JSON', options);
  }
}

export class ValidationError extends ServiceError {
  override name = 'ValidationError';
  constructor(message: string, details: ErrorDetail[] = [], options?: Omit<ServiceErrorOptions, 'details'>) {
    super(message, 400, 'VALIDATION_ERROR', { ...options, details });
  }
}

export class UnauthorizedError extends ServiceError {
  override name = 'UnauthorizedError';
  constructor(message = 'Missing or invalid API key', options?: ServiceErrorOptions) {
    super(message, 401, 'UNAUTHORIZED', options);
  }
}

/** A form's password missing or wrong. */
export class InvalidPasswordError extends ServiceError {
  override name = 'InvalidPasswordError';
  constructor(message = 'The password is not correct', options?: ServiceErrorOptions) {
    super(message, 401, 'INVALID_PASSWORD', options);
  }
}

/** A form's submitter whose e-mail address its list does not admit. */
export class EmailNotAllowedError extends ServiceError {
  override name = 'EmailNotAllowedError';
  constructor(message = 'This e-mail address may not submit this form', options?: ServiceErrorOptions) {
    super(message, 403, 'EMAIL_NOT_ALLOWED', options);
  }
}

export class ForbiddenError extends ServiceError {
  override name = 'ForbiddenError';
  constructor(message = 'You do not have permission to do this', options?: ServiceErrorOptions) {
    super(message, 403, 'FORBIDDEN', options);
  }
}

export class NotFoundError extends ServiceError {
  override name = 'NotFoundError';
  constructor(message = 'Not found', options?: ServiceErrorOptions) {
    super(message, 404, 'NOT_FOUND', options);
  }
}

export class ConflictError extends ServiceError {
  override name = 'ConflictError';
  constructor(message: string, options?: ServiceErrorOptions) {
    super(message, 409, 'CONFLICT', options);
  }
}

export class PayloadTooLargeError extends ServiceError {
  override name = 'PayloadTooLargeError';
  constructor(message: string, options?: ServiceErrorOptions) {
    super(message, 413, 'PAYLOAD_TOO_LARGE', options);
  }
}

export class UnsupportedMediaTypeError extends ServiceError {
  override name = 'UnsupportedMediaTypeError';
  constructor(message: string, options?: ServiceErrorOptions) {
    super(message, 415, 'UNSUPPORTED_MEDIA_TYPE', options);
  }
}

export class UsageLimitExceededError extends ServiceError {
  override name = 'UsageLimitExceededError';
  constructor(message = 'Usage limit exceeded', options?: ServiceErrorOptions) {
    super(message, 402, 'USAGE_LIMIT_EXCEEDED', options);
  }
}

export class TimeoutError extends ServiceError {
  override name = 'TimeoutError';
  constructor(message = 'Request timed out', options?: ServiceErrorOptions) {
    super(message, 408, 'TIMEOUT', options);
  }
}

export class RateLimitExceededError extends ServiceError {
  override name = 'RateLimitExceededError';
  readonly retryAfterInSeconds: number;
  constructor(retryAfterInSeconds: number, message = 'Rate limit exceeded', options?: ServiceErrorOptions) {
    super(message, 429, 'RATE_LIMIT_EXCEEDED', {
      ...options,
      headers: { ...options?.headers, 'Retry-After': String(retryAfterInSeconds) },
    });
    this.retryAfterInSeconds = retryAfterInSeconds;
  }
}

/**
 * A workspace at its cap on runs in progress (core/runs/admission.ts): a 429 like an empty bucket,
 * with a code of its own, since waiting for a token does not help; a run ending does.
 */
export class RunsInProgressLimitError extends ServiceError {
  override name = 'RunsInProgressLimitError';
  readonly retryAfterInSeconds: number;
  constructor(retryAfterInSeconds: number, message: string, options?: ServiceErrorOptions) {
    super(message, 429, 'CONCURRENCY_LIMIT_EXCEEDED', {
      ...options,
      headers: { ...options?.headers, 'Retry-After': String(retryAfterInSeconds) },
    });
    this.retryAfterInSeconds = retryAfterInSeconds;
  }
}

/** A workflow run that failed. Its message is the run's error, which the caller is meant to see. */
export class ExecutionError extends ServiceError {
  override name = 'ExecutionError';
  constructor(message: string, options?: ServiceErrorOptions) {
    super(message, 500, 'EXECUTION_ERROR', options);
  }
}

export function isServiceError(error: unknown): error is ServiceError {
  return (
    error instanceof ServiceError ||
    (typeof error === 'object' && error !== null && serviceErrorBrand in error)
  );
}
