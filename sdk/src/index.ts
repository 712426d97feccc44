/**
 * The client library of the workflow service: run workflows (sync, async, streamed), read jobs,
 * workflow status, usage and rate limits, and verify the signatures of webhook deliveries.
 */
import { WorkflowClient } from './client.js';
import { WorkflowClientError } from './errors.js';

export {
  defaultBaseUrl,
  defaultTimeoutInMs,
  type ExecuteOptions,
  type RetryOptions,
  retryDefaults,
  type WaitForJobOptions,
  WorkflowClient,
  type WorkflowClientConfig,
} from './client.js';
export { type WorkflowClientErrorOptions, WorkflowClientError, type WorkflowErrorCode } from './errors.js';
export {
  type BlobLike,
  type FileContent,
  type FileInput,
  type FileLike,
  fileInput,
  type UrlInput,
} from './files.js';
export {
  type ChunkEvent,
  type DoneEvent,
  type EndEvent,
  type ErrorEvent,
  ExecutionStream,
  type StreamEvent,
  type StreamResult,
} from './stream.js';
export {
  type AbortSignalLike,
  type BodyLike,
  type FetchLike,
  type FetchRequestInit,
  type FetchResponseLike,
  nodeHttpFetch,
} from './transport.js';
export type {
  AsyncExecutionResult,
  BlockLog,
  JobState,
  JobStatus,
  RateLimitBucket,
  RateLimitInfo,
  UsageLimits,
  WorkflowExecutionResult,
  WorkflowStatus,
} from './types.js';
export {
  type SignatureCheck,
  signatureHeaderOf,
  signatureToleranceInSeconds,
  verifyWebhookSignature,
} from './webhooks.js';

// The names of the public `simstudio-ts-sdk`: switching is a change of import.
export { WorkflowClient as SimStudioClient, WorkflowClientError as SimStudioError };
export type {
  WorkflowClientConfig as SimStudioConfig,
  ExecuteOptions as ExecutionOptions,
} from './client.js';
export default WorkflowClient;
