/** Shapes of the service's answers, as the interface gives them. */

/** A block's entry in a sync result's `logs`. */
export interface BlockLog {
  blockId: string;
  blockName: string;
  blockType: string;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  success: boolean;
  /** Present when the block failed. */
  error?: string;
}

export interface WorkflowExecutionResult {
  success: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: a workflow's output is whatever its Response block builds
  output?: any;
  error?: string;
  /** One entry per executed block, in the order of the trace. */
  logs?: BlockLog[];
  metadata?: { duration?: number; executionId?: string; [key: string]: unknown };
  traceSpans?: unknown[];
  totalDuration?: number;
}

export interface AsyncExecutionResult {
  success: boolean;
  taskId: string;
  status: 'queued';
  createdAt: string;
  links: { status: string };
}

export type JobState = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';

export interface JobStatus {
  /** Whether the status request succeeded (true for any job found); the run's outcome is `status`. */
  success: boolean;
  taskId: string;
  status: JobState;
  metadata: { startedAt?: string; completedAt?: string; duration?: number; [key: string]: unknown };
  /** Present when completed. */
  // biome-ignore lint/suspicious/noExplicitAny: a workflow's output is whatever its Response block builds
  output?: any;
  /** Present when failed (the run's error) or cancelled. */
  error?: unknown;
  /** Present while queued or processing, once the workflow has finished runs before: in ms. */
  estimatedDuration?: number;
}

export interface WorkflowStatus {
  isDeployed: boolean;
  deployedAt?: string;
  needsRedeployment: boolean;
}

export interface RateLimitBucket {
  isLimited: boolean;
  limit: number;
  remaining: number;
  resetAt: string;
}

export interface UsageLimits {
  success: boolean;
  rateLimit: { sync: RateLimitBucket; async: RateLimitBucket; authType: string };
  usage: { currentPeriodCost: number; limit: number; plan: string };
}

/** The `X-RateLimit-*` (and `Retry-After`) headers of the last answer. */
export interface RateLimitInfo {
  /** Requests per minute of the bucket the request drew from (its refill rate). */
  limit: number;
  /** Tokens left in that bucket. */
  remaining: number;
  /** When the next token arrives, in Unix ms (0 when the header was absent). */
  reset: number;
  /** The `X-RateLimit-Reset` header as sent (an ISO 8601 timestamp). */
  resetAt?: string;
  /** The wait the service asked for with `Retry-After` on a 429, in ms. */
  retryAfter?: number;
}
