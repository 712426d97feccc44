/**
 * The bundle mode of the local server (`LOCAL_HANDLERS=bundles`): every route, worker and state
 * machine task is served by its Lambda artifact under dist/functions/<id>/ (./function-host.ts), with
 * the environment its synthesized template gives it (./environment.ts), and calls the AWS APIs
 * through its own SDK clients: the local emulators, and for Step Functions, KMS, Secrets
 * Manager, EventBridge Scheduler and SES the local stand-ins (../emulators/aws-api-server.ts).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { keys, type queues, secrets, scheduleGroups } from '../../catalog/resources';
import type { RouteDefinition, WorkerDefinition } from '../../catalog/routes';
import { edgeSecretEnvVar } from '../../catalog/site';
import type { ResponseSink } from '../../functions/http/streaming-route';
import type { StateMachineStarter } from '../../core/runs/by-reference';
import type { ArtifactManifest } from '../../scripts/function-artifacts';
import { startAwsApiServer } from '../emulators/aws-api-server';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../emulators/constants';
import type { RunningService } from '../emulators/http-server';
import { createKmsApi } from '../emulators/kms-api';
import type { LocalEmulators } from '../emulators';
import { createEventBridgeSchedulerApi } from '../emulators/eventbridge-scheduler-api';
import { createSecretsManagerApi } from '../emulators/secrets-manager-api';
import { createSesApi } from '../emulators/ses-api';
import { createSfnApi } from '../emulators/sfn-api';
import { functionEnvironment, lambdaRuntimeVariables } from './environment';
import { processVariables } from '../settings';
import { BundleFunction } from './function-host';
import { streamParser } from './response-stream';

export interface BundleHostOptions {
  manifest: ArtifactManifest;
  /** dist/functions: one asset folder per function id. */
  artifactsDir: string;
  /** The project's node_modules, where the runtime's SDK resolves from. */
  runtimeSdkDir: string;
  /** NODE_PATH of the functions: the runtime's SDK (./artifacts.ts). */
  nodePath: string;
  stack: LocalEmulators;
  starter: StateMachineStarter;
  adminKey: string;
  /** Has the local schedule firer look at the stored schedules again. */
  wakeScheduler(): void;
  /** Tests only: outbound requests may reach loopback (`OUTBOUND_ALLOWLIST` of every function). */
  allowLoopbackOutbound?: boolean;
  /** The operator's settings passed on to the functions (default: the local server's environment). */
  settings?: Record<string, string | undefined>;
}

type RouteHandler = ((event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>) & {
  stream?: (event: APIGatewayProxyEvent, sink: ResponseSink) => Promise<void>;
};

export interface BundleHost {
  functions: Map<string, BundleFunction>;
  routeHandler(route: RouteDefinition): RouteHandler;
  workerHandler(worker: WorkerDefinition): (event: unknown) => Promise<unknown>;
  stop(): Promise<void>;
}

/** lib/service-resources.ts names it; the compiled server carries nothing of the CDK app. */
const adminKeySecretEnvVar = 'ADMIN_API_KEY_SECRET_ARN';

const arn = (service: string, resource: string) =>
  `arn:aws:${service}:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${resource}`;

export async function startBundleHost(options: BundleHostOptions): Promise<BundleHost> {
  const { stack } = options;
  // The ARNs and values that stand in for what CloudFormation resolves at deploy time.
  const keyFiles: Record<string, string> = {};
  const localValues: Record<string, string> = { ...stack.env };
  for (const [name, key] of Object.entries(keys)) {
    localValues[key.envVar] = arn('kms', `key/${name}`);
    keyFiles[localValues[key.envVar]] = stack.env[key.local.envVar];
  }
  const secretValues: Record<string, () => Promise<string>> = {};
  for (const [name, secret] of Object.entries(secrets)) {
    localValues[secret.envVar] = arn('secretsmanager', `secret:${name}`);
    const file = stack.env[secret.local.envVar];
    secretValues[localValues[secret.envVar]] = async () => (await readFile(file)).toString('base64');
  }
  localValues[adminKeySecretEnvVar] = arn('secretsmanager', 'secret:admin-api-key');
  secretValues[localValues[adminKeySecretEnvVar]] = async () => options.adminKey;
  // Only CloudFront sends it, and there is no CloudFront locally: a value nobody knows.
  localValues[edgeSecretEnvVar] = randomBytes(24).toString('base64url');
  const group = scheduleGroups.workflows;
  localValues[group.roleEnvVar] = arn('iam', 'role/workflow-schedules');
  localValues[group.targetArnEnvVar] = arn('sqs', group.targetQueue satisfies keyof typeof queues);

  const awsApi: RunningService = await startAwsApiServer([
    createSfnApi({
      starter: options.starter,
      syncStateMachineArn: stack.env.EXECUTION_SYNC_STATE_MACHINE_ARN,
      asyncStateMachineArn: stack.env.EXECUTION_ASYNC_STATE_MACHINE_ARN,
    }),
    createKmsApi(keyFiles),
    createSecretsManagerApi(secretValues),
    createEventBridgeSchedulerApi(options.wakeScheduler),
    createSesApi(stack.env.NOTIFICATION_OUTBOX_DIR),
  ]);
  const endpoints: Record<string, string> = {
    DYNAMODB_ENDPOINT: stack.env.DYNAMODB_ENDPOINT,
    S3_ENDPOINT: stack.env.S3_ENDPOINT,
    SQS_ENDPOINT: stack.env.SQS_ENDPOINT,
    NODE_PATH: options.nodePath,
    SFN_ENDPOINT: awsApi.endpoint,
    AWS_ENDPOINT_URL_KMS: awsApi.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: awsApi.endpoint,
    AWS_ENDPOINT_URL_SCHEDULER: awsApi.endpoint,
    AWS_ENDPOINT_URL_SESV2: awsApi.endpoint,
    ...(options.allowLoopbackOutbound ? { OUTBOUND_ALLOWLIST: '127.0.0.0/8, [::1], localhost' } : {}),
  };

  const variables = processVariables();
  const functions = new Map<string, BundleFunction>();
  for (const [id, artifact] of Object.entries(options.manifest.functions)) {
    const taskRoot = join(options.artifactsDir, id);
    const runtime = {
      ...lambdaRuntimeVariables({
        functionId: id,
        taskRoot,
        memoryInMb: artifact.memoryInMb,
        credentials: {
          accessKeyId: stack.env.AWS_ACCESS_KEY_ID,
          secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY,
        },
        path: variables.PATH,
      }),
      ...endpoints,
    };
    const environment = functionEnvironment({
      functionId: id,
      template: artifact.environment,
      localValues,
      runtime,
      settings: options.settings ?? variables,
    });
    functions.set(
      id,
      new BundleFunction({
        id,
        taskRoot,
        environment,
        memoryInMb: artifact.memoryInMb,
        timeoutInSeconds: artifact.timeoutInSeconds,
        runtimeSdkDir: options.runtimeSdkDir,
      }),
    );
  }
  const functionOf = (id: string) => {
    const found = functions.get(id);
    if (!found) throw new Error(`No artifact for function ${id}: the manifest is older than the catalog`);
    return found;
  };

  return {
    functions,
    routeHandler(route) {
      const fn = functionOf(route.id);
      const handler: RouteHandler = (event) => fn.invoke(event) as Promise<APIGatewayProxyResult>;
      if (route.streaming) handler.stream = (event, sink) => fn.invokeStreaming(event, streamParser(sink));
      return handler;
    },
    workerHandler(worker) {
      const fn = functionOf(worker.id);
      return (event) => fn.invoke(event);
    },
    async stop() {
      await Promise.all([...functions.values()].map((fn) => fn.stop()));
      await awsApi.stop();
    },
  };
}
