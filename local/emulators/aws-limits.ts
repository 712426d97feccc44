/**
 * The AWS limits the embedded stack enforces where its emulators do not, so that what works
 * locally works in AWS; the table in docs/operating.md says where each one is checked. dynalite
 * refuses items over DynamoDB's 400 KB itself, and fauxqs messages over the queue's
 * MaximumMessageSize, which the local queues set (./catalog-resources.ts).
 */

/** Step Functions: an execution's input and each state's input and output, as UTF-8 JSON. */
export const stepFunctionsPayloadLimitInBytes = 262_144;
/** SQS: a message's body and attributes (the size the local queues are made with). */
export const sqsMessageLimitInBytes = 262_144;
/** EventBridge Scheduler: a schedule target's input. */
export const schedulerInputLimitInBytes = 262_144;
/** Lambda, synchronous invocation: the event, as the JSON Invoke sends. */
export const lambdaRequestLimitInBytes = 6_291_456;
/** Lambda, synchronous invocation: the function's answer (100 bytes more than the request's). */
export const lambdaResponseLimitInBytes = 6_291_556;
/** API Gateway (REST): a request's body. */
export const apiGatewayPayloadLimitInBytes = 10 * 1024 * 1024;
/** API Gateway (REST): how long it waits for a non-streaming integration to answer. */
export const apiGatewayIntegrationTimeoutInMs = 29_000;

/** A payload over an AWS limit, named as the service names it, with the limit in the message. */
export class AwsLimitExceededError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly statusCode = 413,
  ) {
    super(message);
  }
}

/** `262,144`: limits are written out in bytes, as AWS defines them. */
export function bytesText(bytes: number): string {
  return bytes.toLocaleString('en-US');
}

/** UTF-8 bytes of a value as JSON, the measure of every payload limit above. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/**
 * Refuses a payload over an API's size limit, as AWS does (a ValidationException naming it), before
 * anything of it is done.
 */
export function refuseOverLimit(
  what: string,
  payload: unknown,
  limitInBytes: number,
  limitName: string,
): void {
  const bytes = jsonBytes(payload);
  if (bytes <= limitInBytes) return;
  throw new AwsLimitExceededError(
    'ValidationException',
    `${what} is ${bytesText(bytes)} bytes, over the ${bytesText(limitInBytes)} bytes (${Math.round(limitInBytes / 1024)} KB) of ${limitName}`,
    400,
  );
}
