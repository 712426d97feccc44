/**
 * What every AWS SDK client of the service is made with. Each client has a module of its own
 * (./dynamodb-client.ts, ./s3-client.ts, ./sqs-client.ts, ./sfn-client.ts), so that a Lambda
 * bundle loads only the SDK packages of the clients it uses: requiring an SDK client package is
 * most of a route's init (client-s3 alone about 30 ms). In AWS the clients use the Lambda's role
 * and region; the local server points them at its emulators through `DYNAMODB_ENDPOINT`,
 * `S3_ENDPOINT`, `SQS_ENDPOINT` and `SFN_ENDPOINT`.
 */
import type { AwsService } from '../metering';
import { inProcessClients } from './in-process-endpoints';
import { optionalEnv } from './require-env';

export const region = () => optionalEnv('AWS_REGION') ?? optionalEnv('AWS_DEFAULT_REGION') ?? 'us-east-1';

/**
 * Local emulators accept any credentials; giving some avoids the SDK's slow credential chain. An
 * emulator running in this process is reached without a socket (./in-process-endpoints.ts, where
 * the local emulators install local/transport/in-process-transport.ts).
 */
export function localOptions(endpoint: string | undefined) {
  if (!endpoint) return {};
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  // StartSyncExecution's `sync-` host prefix would turn a local endpoint's host into one that is not there.
  return { endpoint, credentials, disableHostPrefix: true, ...inProcessClients()?.optionsFor(endpoint) };
}

export function leanForInProcess<C extends { middlewareStack: { remove(name: string): boolean } }>(
  client: C,
  endpoint: string | undefined,
): C {
  const clients = inProcessClients();
  return clients && endpoint ? clients.lean(client, endpoint) : client;
}

const forgetters = new Set<() => void>();

/** A client module registers how to forget its cached client. */
export function onResetClients(forget: () => void): void {
  forgetters.add(forget);
}

/** Forget cached clients; the local server calls this after it changes endpoints (tests restart it). */
export function resetClients(): void {
  for (const forget of forgetters) forget();
}

type ClientDecorator = <C extends { middlewareStack: unknown }>(client: C, service: AwsService) => C;
let decorator: ClientDecorator | undefined;

/**
 * What the local emulators add to every SDK client the service makes: the metering of its billable
 * calls for the cost model (adapters/metering.ts `withMetering`). In AWS nothing is installed, so
 * the Lambda bundles carry no metering and their calls pass through no metering middleware.
 */
export function installClientDecorator(decorate: ClientDecorator | undefined): void {
  decorator = decorate;
}

/** The client as the installed decorator leaves it; as it is when none is installed. */
export function decorated<C extends { middlewareStack: unknown }>(client: C, service: AwsService): C {
  return decorator ? decorator(client, service) : client;
}
