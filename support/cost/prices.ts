/**
 * AWS list prices the cost model uses (support/cost/model.ts): us-east-1, on-demand, no free tier,
 * the architecture and table mode the stacks deploy (arm64 Lambdas, on-demand DynamoDB, a REST
 * API, Express machine for sync runs and Standard for async ones). `asOf` is the day every
 * figure was last checked against the services' pricing pages (aws.amazon.com/<service>/pricing):
 * move it whenever they are checked again or a figure changes.
 */
export const prices = {
  asOf: '2026-11-25',
  region: 'us-east-1',
  /** REST API, first 333 million requests a month. */
  apiGatewayPerMillionRequests: 3.5,
  lambdaPerMillionRequests: 0.2,
  /** arm64, first 7.5 billion GB-seconds a month. */
  lambdaPerGbSecond: 0.0000133334,
  stepFunctionsExpressPerMillionRequests: 1.0,
  /** First 1,000 GB-hours a month; billed in 64 MB and 100 ms steps. */
  stepFunctionsExpressPerGbSecond: 0.00001667,
  stepFunctionsStandardPerThousandTransitions: 0.025,
  /** On-demand capacity. */
  dynamoDbPerMillionWriteUnits: 0.625,
  dynamoDbPerMillionReadUnits: 0.125,
  /** Standard queues; each 64 KB of a payload is one request. */
  sqsPerMillionRequests: 0.4,
  /** S3 Standard: PUT, COPY, POST and LIST; GET and the others. DELETE is free. */
  s3PerThousandPutRequests: 0.005,
  s3PerThousandGetRequests: 0.0004,
  kmsPerTenThousandRequests: 0.03,
  secretsManagerPerTenThousandCalls: 0.05,
  schedulerPerMillionInvocations: 1.0,
} as const;

export type PriceTable = typeof prices;
