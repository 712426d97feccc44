/**
 * AWS SDK v3 clients, created once per process. In AWS they use the Lambda's role and region; the
 * local stack points them at its emulators through `DYNAMODB_ENDPOINT`, `S3_ENDPOINT`,
 * `SQS_ENDPOINT` and `SFN_ENDPOINT`.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SFNClient } from '@aws-sdk/client-sfn';
import { withMetering } from '../metering';
import { inProcessClients } from './in-process-endpoints';

const region = () => process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';

/**
 * Local emulators accept any credentials; giving some avoids the SDK's slow credential chain. An
 * emulator running in this process is reached without a socket (./in-process-transport.ts).
 */
function localOptions(endpoint: string | undefined) {
  if (!endpoint) return {};
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  return { endpoint, credentials, ...inProcessClients()?.optionsFor(endpoint) };
}

function leanForInProcess<C extends { middlewareStack: { remove(name: string): boolean } }>(
  client: C,
  endpoint: string | undefined,
): C {
  const clients = inProcessClients();
  return clients && endpoint ? clients.lean(client, endpoint) : client;
}

let documentClient: DynamoDBDocumentClient | undefined;
export function dynamoDocumentClient(): DynamoDBDocumentClient {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  // The document client shares its plain client's config and middleware: one lean call serves both.
  documentClient ??= leanForInProcess(
    DynamoDBDocumentClient.from(
      withMetering(new DynamoDBClient({ region: region(), ...localOptions(endpoint) }), 'DynamoDB'),
      { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true } },
    ),
    endpoint,
  );
  return documentClient;
}

let s3: S3Client | undefined;
export function s3Client(): S3Client {
  s3 ??= withMetering(
    new S3Client({
      region: region(),
      ...localOptions(process.env.S3_ENDPOINT),
      forcePathStyle: Boolean(process.env.S3_ENDPOINT),
      // Local S3 emulators store aws-chunked framing verbatim unless checksums are only sent when required.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
    'S3',
  );
  return s3;
}

let sqs: SQSClient | undefined;
export function sqsClient(): SQSClient {
  sqs ??= withMetering(
    leanForInProcess(
      new SQSClient({ region: region(), ...localOptions(process.env.SQS_ENDPOINT) }),
      process.env.SQS_ENDPOINT,
    ),
    'SQS',
  );
  return sqs;
}

let sfn: SFNClient | undefined;
export function sfnClient(): SFNClient {
  sfn ??= withMetering(
    new SFNClient({ region: region(), ...localOptions(process.env.SFN_ENDPOINT) }),
    'StepFunctions',
  );
  return sfn;
}

/** Forget cached clients; the local stack calls this after it changes endpoints (tests restart it). */
export function resetClients(): void {
  documentClient = undefined;
  s3 = undefined;
  sqs = undefined;
  sfn = undefined;
}

/** Reads a required environment variable, naming it when missing. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
}
