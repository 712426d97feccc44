/** The Lambda context a local invocation gets: the fields handlers and Powertools read. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { isMetering, meter } from '../adapters/metering';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './emulators/constants';

export function localLambdaContext(
  functionName: string,
  timeoutInSeconds: number,
  memoryInMb = 256,
): Context {
  const deadline = Date.now() + timeoutInSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: String(memoryInMb),
    awsRequestId: randomUUID(),
    logGroupName: `/local/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * Times one local invocation for the cost model when it listens (adapters/metering.ts): `end()`
 * meters it as Lambda bills it, by memory and duration. Undefined when nothing listens.
 */
export function startInvocationMetering(functionId: string, memoryInMb: number) {
  if (!isMetering()) return undefined;
  const startedInMs = performance.now();
  return {
    end: () =>
      meter({ kind: 'lambda', functionId, memoryInMb, durationInMs: performance.now() - startedInMs }),
  };
}
