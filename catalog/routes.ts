/**
 * The route table: one entry per HTTP endpoint, each served by its own Lambda in AWS and by the
 * same handler module in the local server; the CDK app, the local server and the OpenAPI document
 * all read it. Each area's routes are defined in catalog/<area>-routes.ts, so that a handler's
 * bundle carries only its own area's routes and schemas (catalog/route-definition.ts).
 */
import { serviceRoutes } from './service-routes';
import { adminRoutes } from './admin-routes';
import { usageRoutes } from './usage-routes';
import { apiKeyRoutes } from './api-key-routes';
import { workspaceRoutes } from './workspace-routes';
import { environmentRoutes } from './environment-routes';
import { workflowRoutes } from './workflow-routes';
import { jobRoutes } from './job-routes';
import { logRoutes } from './log-routes';
import { fileRoutes } from './file-routes';
import { notificationRoutes } from './notification-routes';
import { webhookRoutes } from './webhook-routes';
import { formRoutes } from './form-routes';
import { scheduleRoutes } from './schedule-routes';
import { organizationRoutes } from './organization-routes';
import { permissionGroupRoutes } from './permission-group-routes';
import { metricsRoutes } from './metrics-routes';
import { finalizeTimeoutInSeconds, stepTimeoutInSeconds } from './function-defaults';
import type { QueueName, ResourceAccess, StateMachineName } from './resources';
import type { RouteDefinition } from './route-definition';

export * from './route-definition';

export const routes = [
  ...serviceRoutes,
  ...adminRoutes,
  ...usageRoutes,
  ...apiKeyRoutes,
  ...workspaceRoutes,
  ...environmentRoutes,
  ...workflowRoutes,
  ...jobRoutes,
  ...logRoutes,
  ...metricsRoutes,
  ...fileRoutes,
  ...notificationRoutes,
  ...webhookRoutes,
  ...formRoutes,
  ...scheduleRoutes,
  ...organizationRoutes,
  ...permissionGroupRoutes,
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof routes)[number]['id'];

/**
 * What starts a worker: the execution state machine's Task states, or a queue (as an SQS event
 * source with partial batch failures in AWS, a poller locally). `deadLetter` consumes the queue's
 * dead-letter queue instead. CDK and the local service both wire consumers from this.
 */
export type WorkerTrigger =
  | { kind: 'stateMachineTask' }
  | { kind: 'queue'; queue: QueueName; deadLetter?: boolean; batchSize: number }
  /** An execution of the machine ended FAILED, TIMED_OUT or ABORTED (an EventBridge rule in AWS). */
  | { kind: 'executionEnded'; stateMachine: StateMachineName }
  /** On a clock (an EventBridge schedule in AWS, a timer locally). */
  | { kind: 'every'; minutes: number };

/** Workers: functions that are not HTTP routes. */
export interface WorkerDefinition {
  id: string;
  entry: string;
  summary: string;
  access: ResourceAccess;
  timeoutInSeconds: number;
  memoryInMb: number;
  /** Runs blocks, so the File block's parsers are installed beside it (lib/bundling.ts). */
  runsBlocks?: boolean;
  /** Makes outbound HTTP requests through the guard: what its allowlist loads on demand is installed beside it. */
  makesOutboundRequests?: boolean;
  trigger: WorkerTrigger;
}

export const workers = {
  executionStep: {
    id: 'executionStep',
    entry: 'functions/execution/step.ts',
    summary: 'Runs ready blocks of a workflow run until done, waiting, or out of time budget',
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      buckets: { files: 'readWrite' },
      // Decrypts the workspace environment for `{{NAME}}` references.
      keys: { environment: 'decrypt' },
      // Agent and router blocks with provider `bedrock`.
      models: 'invoke',
    },
    timeoutInSeconds: stepTimeoutInSeconds,
    memoryInMb: 1024,
    runsBlocks: true,
    trigger: { kind: 'stateMachineTask' },
  },
  executionFinalize: {
    id: 'executionFinalize',
    entry: 'functions/execution/finalize.ts',
    summary: 'Writes the log entry of a finished run, settles its job and shapes its result',
    // Limits: the run's cost is added to its owner's usage (marks in the limits table). Metrics: the
    // run is counted in its workspace's hour.
    access: {
      tables: { entities: 'read', executions: 'readWrite', limits: 'readWrite', metrics: 'readWrite' },
      buckets: { files: 'readWrite' },
      ownerLimits: 'update',
      // The completion event of a run that a subscription matches; the subscriptions are read (entities).
      queues: { notifications: 'send' },
    },
    timeoutInSeconds: finalizeTimeoutInSeconds,
    memoryInMb: 512,
    trigger: { kind: 'stateMachineTask' },
  },
  jobsStart: {
    id: 'jobsStart',
    entry: 'functions/jobs/start.ts',
    summary: 'Starts queued asynchronous runs and schedule fires on the Standard state machine',
    access: {
      // A schedule fire past its owner's usage limit (read from the owner's item) starts no run; one
      // that starts takes a slot among its workspace's runs in progress (the limits table).
      tables: { entities: 'readWrite', executions: 'readWrite', limits: 'readWrite' },
      buckets: { files: 'readWrite' },
      stateMachines: { executionAsync: 'start' },
    },
    timeoutInSeconds: 60,
    memoryInMb: 512,
    trigger: { kind: 'queue', queue: 'jobs', batchSize: 10 },
  },
  notificationsWorker: {
    id: 'notificationsWorker',
    entry: 'functions/notifications/worker.ts',
    summary: 'Dispatches completion events to matching subscriptions and makes webhook delivery attempts',
    access: {
      // Limits: the rate limits and usage that includeRateLimits and includeUsageData add.
      tables: { entities: 'read', executions: 'readWrite', limits: 'read' },
      buckets: { files: 'readWrite' },
      // Consumes events and deliveries, queues the deliveries of an event, delays retries.
      queues: { notifications: 'sendAndConsume' },
      // Decrypts webhook secrets (to sign) and chat tokens.
      keys: { environment: 'decrypt' },
      // Notification e-mail.
      email: 'send',
    },
    // 10 attempts at the 30 s delivery time-out, with room to spare.
    timeoutInSeconds: 60,
    memoryInMb: 512,
    // Webhook deliveries and chat messages go through the outbound guard.
    makesOutboundRequests: true,
    trigger: { kind: 'queue', queue: 'notifications', batchSize: 10 },
  },
  notificationsInactivity: {
    id: 'notificationsInactivity',
    entry: 'functions/notifications/inactivity.ts',
    summary: 'Checks the no-activity alert rules: alerts for workflows that have not run for their hours',
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      queues: { notifications: 'send' },
    },
    timeoutInSeconds: 120,
    memoryInMb: 256,
    trigger: { kind: 'every', minutes: 15 },
  },
  jobsDeadLetter: {
    id: 'jobsDeadLetter',
    entry: 'functions/jobs/dead-letter.ts',
    summary: 'Marks the job of a message that could not be started as failed, with the reason',
    access: { tables: { executions: 'readWrite', limits: 'readWrite' } },
    timeoutInSeconds: 30,
    memoryInMb: 256,
    trigger: { kind: 'queue', queue: 'jobs', deadLetter: true, batchSize: 10 },
  },
  jobsRunEnded: {
    id: 'jobsRunEnded',
    entry: 'functions/jobs/run-ended.ts',
    summary: 'Fails the job of an asynchronous run that ended outside its Finalize (failed, timed out)',
    access: { tables: { executions: 'readWrite', limits: 'readWrite' } },
    timeoutInSeconds: 30,
    memoryInMb: 256,
    trigger: { kind: 'executionEnded', stateMachine: 'executionAsync' },
  },
} as const satisfies Record<string, WorkerDefinition>;
