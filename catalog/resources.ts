/**
 * The resource catalog: every table, bucket, queue, state machine and key of the service. The CDK
 * stacks create exactly these, and the local emulators hold the same ones, so the
 * two cannot drift. Handlers find a resource through its environment variable.
 */

export interface KeyAttributes {
  partitionKey: string;
  sortKey: string;
}

export interface IndexDefinition extends KeyAttributes {
  name: string;
  /**
   * The non-key attributes the index copies (INCLUDE projection); absent: all of them. Copying only a
   * summary keeps each index write at one write unit whatever the size of the item.
   */
  projection?: readonly string[];
}

export interface TableDefinition extends KeyAttributes {
  /** Environment variable that carries the table name to a handler. */
  envVar: string;
  /** Unix-seconds attribute after which DynamoDB removes an item (readers filter expired items too). */
  timeToLiveAttribute?: string;
  indexes: IndexDefinition[];
  description: string;
}

export interface BucketDefinition {
  envVar: string;
  description: string;
}

export interface QueueDefinition {
  envVar: string;
  visibilityTimeoutInSeconds: number;
  /** Receives after which a message moves to the queue's dead-letter queue. */
  maxReceiveCount: number;
  description: string;
}

export interface StateMachineDefinition {
  envVar: string;
  type: 'EXPRESS' | 'STANDARD';
  description: string;
}

/**
 * How long log entries stay: DynamoDB TTL on the entry, and the files bucket's lifecycle on the
 * prefix of their large parts (a day longer, so an entry never points at a blob already gone).
 */
export const logRetention = { envVar: 'LOG_RETENTION_DAYS', defaultInDays: 30, blobPrefix: 'logs/' } as const;

/**
 * Files of runs and uploads (`files/<workspaceId>/…`, core/files/service.ts): kept as long as the
 * log entries that list them. Blobs of unfinished runs (`executions/…`: job requests, checkpoints):
 * a run lasts at most a year (Step Functions' limit), so nothing older can still be needed.
 */
export const blobExpiry = {
  files: { prefix: 'files/', afterDays: logRetention.defaultInDays + 1 },
  executions: { prefix: 'executions/', afterDays: 366 },
} as const;

/** What the log's indexes copy of an entry: what a list item shows and every filter reads. */
export const logSummaryAttributes = [
  'id',
  'workspaceId',
  'workflowId',
  'executionId',
  'level',
  'trigger',
  'startedAt',
  'endedAt',
  'loggedAt',
  'totalDurationMs',
  'costTotal',
  'models',
  'files',
  'ttl',
] as const;

export const tables = {
  entities: {
    envVar: 'ENTITIES_TABLE',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [
      { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
      { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    ],
    description: 'Users, API keys, workspaces, members, workflows and their immutable deployments',
  },
  executions: {
    envVar: 'EXECUTIONS_TABLE',
    partitionKey: 'pk',
    sortKey: 'sk',
    // The log's time-ordered indexes, sharded (see adapters/dynamodb/execution-log-store.ts).
    indexes: [
      {
        name: 'workspaceLog',
        partitionKey: 'workspaceShard',
        sortKey: 'position',
        projection: logSummaryAttributes,
      },
      {
        name: 'workflowLog',
        partitionKey: 'workflowShard',
        sortKey: 'position',
        projection: logSummaryAttributes,
      },
      {
        name: 'workspaceErrorLog',
        partitionKey: 'errorShard',
        sortKey: 'position',
        projection: logSummaryAttributes,
      },
    ],
    timeToLiveAttribute: 'ttl',
    description: 'Execution log entries, run checkpoints and jobs',
  },
  limits: {
    envVar: 'LIMITS_TABLE',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [],
    timeToLiveAttribute: 'ttl',
    description:
      'Rate-limit buckets and usage per user, organization and source address; one mark per costed run',
  },
  metrics: {
    envVar: 'METRICS_TABLE',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [],
    timeToLiveAttribute: 'ttl',
    description: 'Run counters per workspace and hour (runs, errors, durations, cost), added to as runs end',
  },
} as const satisfies Record<string, TableDefinition>;

export const buckets = {
  files: {
    envVar: 'FILES_BUCKET',
    description: 'Uploaded and generated files, and large execution data (trace spans, outputs, snapshots)',
  },
} as const satisfies Record<string, BucketDefinition>;

export const queues = {
  jobs: {
    envVar: 'JOBS_QUEUE_URL',
    // Six times the start worker's time-out, as Lambda recommends for an SQS event source.
    visibilityTimeoutInSeconds: 360,
    maxReceiveCount: 5,
    description: 'Asynchronous runs and schedule fires waiting to start',
  },
  notifications: {
    envVar: 'NOTIFICATIONS_QUEUE_URL',
    // Six times the worker's time-out; a retry sets its own delay on the message.
    visibilityTimeoutInSeconds: 360,
    maxReceiveCount: 8,
    description: 'Completion events and webhook deliveries, retried by visibility delay',
  },
} as const satisfies Record<string, QueueDefinition>;

export const stateMachines = {
  executionSync: {
    envVar: 'EXECUTION_SYNC_STATE_MACHINE_ARN',
    type: 'EXPRESS',
    description: 'Synchronous runs (StartSyncExecution)',
  },
  executionAsync: {
    envVar: 'EXECUTION_ASYNC_STATE_MACHINE_ARN',
    type: 'STANDARD',
    description: 'Asynchronous runs; execution name is the task id',
  },
} as const satisfies Record<string, StateMachineDefinition>;

/**
 * Workflow schedules: EventBridge Scheduler schedules in one group in AWS, each sending a message
 * to `targetQueue`; locally an in-process scheduler that sends the same message to the same queue.
 */
export interface ScheduleGroupDefinition {
  /** Carries the group's name to a handler. */
  envVar: string;
  /** Carries the ARN of the role the scheduler assumes to send to the queue. */
  roleEnvVar: string;
  /** Carries the ARN of the target queue. */
  targetArnEnvVar: string;
  targetQueue: QueueName;
  description: string;
}

export const scheduleGroups = {
  workflows: {
    envVar: 'SCHEDULE_GROUP_NAME',
    roleEnvVar: 'SCHEDULER_ROLE_ARN',
    targetArnEnvVar: 'SCHEDULE_TARGET_QUEUE_ARN',
    targetQueue: 'jobs',
    description: 'One schedule per scheduled workflow; each fire sends a start message to the jobs queue',
  },
} as const satisfies Record<string, ScheduleGroupDefinition>;

export interface KeyDefinition {
  /** Environment variable that carries the key ARN to a handler (KMS in AWS). */
  envVar: string;
  /** The name under which the context (e.g. the workspace id) goes into the KMS encryption context. */
  encryptionContextKey: string;
  /** Locally a key file under the data dir stands in for the KMS key; its path goes in `envVar`. */
  local: { fileName: string; envVar: string };
  description: string;
}

export const keys = {
  environment: {
    envVar: 'ENVIRONMENT_KEY_ARN',
    encryptionContextKey: 'workspaceId',
    local: { fileName: 'secrets.key', envVar: 'ENVIRONMENT_KEY_FILE' },
    description: 'Wraps the data keys that encrypt workspace environment variables (envelope encryption)',
  },
} as const satisfies Record<string, KeyDefinition>;

/**
 * Secrets the service makes for itself (random, never shown to anyone): Secrets Manager in AWS, a key
 * file under the data dir locally.
 */
export interface SecretDefinition {
  /** Carries the secret's ARN to a handler (AWS). */
  envVar: string;
  /** Locally a key file (32 random bytes) stands in for the secret; its path goes in `envVar`. */
  local: { fileName: string; envVar: string };
  description: string;
}

export const secrets = {
  logCursor: {
    envVar: 'LOG_CURSOR_SECRET_ARN',
    local: { fileName: 'log-cursor.key', envVar: 'LOG_CURSOR_KEY_FILE' },
    description: 'Signs the log API cursors, so a tampered or foreign cursor is refused',
  },
  invitationToken: {
    envVar: 'INVITATION_TOKEN_SECRET_ARN',
    local: { fileName: 'invitation-token.key', envVar: 'INVITATION_TOKEN_KEY_FILE' },
    description: 'Signs invitation tokens, so a forged or altered token is refused',
  },
} as const satisfies Record<string, SecretDefinition>;

export type TableName = keyof typeof tables;
export type BucketName = keyof typeof buckets;
export type QueueName = keyof typeof queues;
export type StateMachineName = keyof typeof stateMachines;
export type KeyName = keyof typeof keys;
export type SecretName = keyof typeof secrets;

/** `encrypt` may only make new data keys (kms:GenerateDataKey), `decrypt` only unwrap them (kms:Decrypt). */
export type KeyAccess = 'encrypt' | 'decrypt' | 'encryptDecrypt';

/** What one function may touch; the CDK stack turns this into least-privilege grants. */
export interface ResourceAccess {
  tables?: Partial<Record<TableName, 'read' | 'readWrite'>>;
  buckets?: Partial<Record<BucketName, 'read' | 'readWrite'>>;
  queues?: Partial<Record<QueueName, 'send' | 'consume' | 'sendAndConsume'>>;
  /** `start` also lets the caller describe its executions; `stop` is StopExecution (cancel). */
  stateMachines?: Partial<Record<StateMachineName, 'startSync' | 'start' | 'stop'>>;
  /** `manage`: create, update and delete the schedules of the workflow schedule group (and pass its role). */
  schedules?: 'manage';
  keys?: Partial<Record<KeyName, KeyAccess>>;
  /** `read`: GetSecretValue on the secret (its value never changes while the service runs). */
  secrets?: Partial<Record<SecretName, 'read'>>;
  /** `send`: send e-mail through SES (notification e-mail), from this account's verified identities. */
  email?: 'send';
  /** `invoke`: call Bedrock foundation models and inference profiles (agent and router blocks). */
  models?: 'invoke';
  /**
   * `update`: UpdateItem on the `entities` items of users and organizations only (keys `USER#…` and
   * `ORG#…`), where their rate-limit buckets and usage are kept; no other item, no other write.
   */
  ownerLimits?: 'update';
}
