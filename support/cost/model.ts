/**
 * What a run costs on AWS, item by item, from what it was measured to use on the local emulators
 * (support/cost/measure.ts): API requests, function invocations and their GB-seconds at each
 * function's configured memory, state machine requests and transitions, DynamoDB request units,
 * and SQS, S3, KMS and Secrets Manager requests. Pure arithmetic: a change that adds a call to a
 * run changes the figure.
 */
import type { MeteredEvent } from '../../adapters/metering';
import type { PriceTable } from './prices';

/** What runs used, summed over `runs` runs. */
export interface Usage {
  runs: number;
  apiRequests: number;
  lambdaInvocations: number;
  /** Each invocation's duration rounded up to the millisecond, times its memory in GB. */
  lambdaGbSeconds: number;
  expressRequests: number;
  /** Each execution billed in 64 MB and 100 ms steps, as Express is. */
  expressGbSeconds: number;
  standardTransitions: number;
  dynamoReadUnits: number;
  dynamoWriteUnits: number;
  sqsRequests: number;
  s3PutRequests: number;
  s3GetRequests: number;
  kmsRequests: number;
  secretsManagerCalls: number;
  schedulerInvocations: number;
  /** Every AWS call by `Service.Operation`, and every function invocation by `Lambda.<id>`. */
  calls: Record<string, number>;
}

export function emptyUsage(): Usage {
  return {
    runs: 0,
    apiRequests: 0,
    lambdaInvocations: 0,
    lambdaGbSeconds: 0,
    expressRequests: 0,
    expressGbSeconds: 0,
    standardTransitions: 0,
    dynamoReadUnits: 0,
    dynamoWriteUnits: 0,
    sqsRequests: 0,
    s3PutRequests: 0,
    s3GetRequests: 0,
    kmsRequests: 0,
    secretsManagerCalls: 0,
    schedulerInvocations: 0,
    calls: {},
  };
}

const s3GetClass = new Set(['GetObject', 'HeadObject', 'GetObjectTagging']);
const s3Free = new Set(['DeleteObject', 'DeleteObjects']);
const expressMemoryInGb = 64 / 1024;

/** Adds one metered event to `usage`. */
export function addEvent(usage: Usage, event: MeteredEvent): void {
  const count = (key: string) => {
    usage.calls[key] = (usage.calls[key] ?? 0) + 1;
  };
  switch (event.kind) {
    case 'apiRequest':
      usage.apiRequests += 1;
      return;
    case 'lambda':
      usage.lambdaInvocations += 1;
      usage.lambdaGbSeconds += (event.memoryInMb / 1024) * (Math.ceil(event.durationInMs) / 1000);
      count(`Lambda.${event.functionId}`);
      return;
    case 'execution':
      if (event.machineType === 'EXPRESS') {
        usage.expressRequests += 1;
        usage.expressGbSeconds += expressMemoryInGb * Math.max(1, Math.ceil(event.durationInMs / 100)) * 0.1;
      } else {
        usage.standardTransitions += event.transitions;
      }
      count(`StepFunctions.${event.machineType}`);
      return;
    case 'aws':
      // An empty receive is a poller waiting: a cost of having a queue, not of any run.
      if (event.operation === 'ReceiveMessage' && event.messages === 0) return;
      count(`${event.service}.${event.operation}`);
      if (event.service === 'DynamoDB') {
        usage.dynamoReadUnits += event.readUnits ?? 0;
        usage.dynamoWriteUnits += event.writeUnits ?? 0;
      } else if (event.service === 'SQS') usage.sqsRequests += 1;
      else if (event.service === 'S3') {
        if (s3GetClass.has(event.operation)) usage.s3GetRequests += 1;
        else if (!s3Free.has(event.operation)) usage.s3PutRequests += 1;
      } else if (event.service === 'KMS') usage.kmsRequests += 1;
      else if (event.service === 'SecretsManager') usage.secretsManagerCalls += 1;
      else if (event.service === 'Scheduler') usage.schedulerInvocations += 1;
      return;
  }
}

export interface CostItem {
  item: string;
  /** Billed quantity per run (requests, units, GB-seconds). */
  perRun: number;
  unit: string;
  usdPerMillionRuns: number;
}

/** The cost of a million runs like the measured ones, item by item (items that cost nothing left out). */
export function costOfMillionRuns(usage: Usage, price: PriceTable): CostItem[] {
  const runs = Math.max(1, usage.runs);
  const item = (name: string, total: number, unit: string, usdPerUnit: number): CostItem => ({
    item: name,
    perRun: total / runs,
    unit,
    usdPerMillionRuns: (total / runs) * usdPerUnit * 1_000_000,
  });
  const items = [
    item('API Gateway requests', usage.apiRequests, 'requests', price.apiGatewayPerMillionRequests / 1e6),
    item('Lambda requests', usage.lambdaInvocations, 'requests', price.lambdaPerMillionRequests / 1e6),
    item('Lambda duration', usage.lambdaGbSeconds, 'GB-s', price.lambdaPerGbSecond),
    item(
      'Step Functions Express requests',
      usage.expressRequests,
      'requests',
      price.stepFunctionsExpressPerMillionRequests / 1e6,
    ),
    item(
      'Step Functions Express duration',
      usage.expressGbSeconds,
      'GB-s',
      price.stepFunctionsExpressPerGbSecond,
    ),
    item(
      'Step Functions Standard transitions',
      usage.standardTransitions,
      'transitions',
      price.stepFunctionsStandardPerThousandTransitions / 1000,
    ),
    item(
      'DynamoDB write request units',
      usage.dynamoWriteUnits,
      'WRU',
      price.dynamoDbPerMillionWriteUnits / 1e6,
    ),
    item(
      'DynamoDB read request units',
      usage.dynamoReadUnits,
      'RRU',
      price.dynamoDbPerMillionReadUnits / 1e6,
    ),
    item('SQS requests', usage.sqsRequests, 'requests', price.sqsPerMillionRequests / 1e6),
    item('S3 PUT/LIST requests', usage.s3PutRequests, 'requests', price.s3PerThousandPutRequests / 1000),
    item('S3 GET requests', usage.s3GetRequests, 'requests', price.s3PerThousandGetRequests / 1000),
    item('KMS requests', usage.kmsRequests, 'requests', price.kmsPerTenThousandRequests / 10_000),
    item(
      'Secrets Manager calls',
      usage.secretsManagerCalls,
      'calls',
      price.secretsManagerPerTenThousandCalls / 10_000,
    ),
    item(
      'EventBridge Scheduler invocations',
      usage.schedulerInvocations,
      'invocations',
      price.schedulerPerMillionInvocations / 1e6,
    ),
  ];
  return items.filter((entry) => entry.perRun > 0);
}

export function totalOf(items: CostItem[]): number {
  return items.reduce((sum, entry) => sum + entry.usdPerMillionRuns, 0);
}
