/**
 * Turns one function's `ResourceAccess` (from the catalog) into least-privilege IAM statements on
 * the function's role and into the environment variables that tell the handler where each resource
 * is. Statements are written out rather than taken from CDK's `grant*` helpers, so that they name
 * exact actions (no `s3:GetObject*`, no `dynamodb:Scan`: the design forbids scans on request paths)
 * and exact index ARNs from the catalog (no `index/*`).
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as cdk from 'aws-cdk-lib';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import {
  type BucketName,
  buckets,
  type KeyAccess,
  type KeyName,
  keys,
  type QueueName,
  queues,
  type ResourceAccess,
  type SecretName,
  secrets,
  type StateMachineName,
  stateMachines,
  type TableName,
  tables,
} from '../../catalog/resources';
import type { ServiceResources } from '../service-resources';

/** DynamoDB actions per access level. TransactWriteItems is authorised through these item actions. */
export const tableActions = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
} as const;

export const bucketActions = {
  /** ListBucket lets a missing key answer 404 (NoSuchKey) rather than 403. */
  readBucket: ['s3:ListBucket'],
  readObjects: ['s3:GetObject'],
  writeObjects: ['s3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
} as const;

export const queueActions = {
  send: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
  consume: [
    'sqs:ReceiveMessage',
    'sqs:DeleteMessage',
    'sqs:ChangeMessageVisibility',
    'sqs:GetQueueAttributes',
    'sqs:GetQueueUrl',
  ],
  /** A worker that consumes a queue and puts new messages on it (the notifications dispatcher). */
  sendAndConsume: [
    'sqs:SendMessage',
    'sqs:ReceiveMessage',
    'sqs:DeleteMessage',
    'sqs:ChangeMessageVisibility',
    'sqs:GetQueueAttributes',
    'sqs:GetQueueUrl',
  ],
} as const;

export const stateMachineActions = {
  startSync: ['states:StartSyncExecution'],
  start: ['states:StartExecution'],
  stop: ['states:StopExecution'],
} as const;

/**
 * KMS actions per key access level: `encrypt` only makes data keys, `decrypt` only unwraps them;
 * neither may Encrypt/Decrypt arbitrary data or re-encrypt, and no function administers a key.
 */
export const keyActions = {
  encrypt: ['kms:GenerateDataKey'],
  decrypt: ['kms:Decrypt'],
  encryptDecrypt: ['kms:GenerateDataKey', 'kms:Decrypt'],
} as const satisfies Record<KeyAccess, readonly string[]>;

export interface ResourceAccessGrantProps {
  readonly function: lambda.Function;
  readonly access: ResourceAccess;
  readonly resources: ServiceResources;
}

export class ResourceAccessGrant extends Construct {
  /** The environment variables this grant added, by name (for tests). */
  readonly environment: Record<string, string> = {};

  constructor(scope: Construct, id: string, props: ResourceAccessGrantProps) {
    super(scope, id);
    const { function: fn, access, resources } = props;
    const allow = (actions: readonly string[], resourceArns: string[]) =>
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...actions], resources: resourceArns }));
    const setEnv = (name: string, value: string) => {
      fn.addEnvironment(name, value);
      this.environment[name] = value;
    };

    for (const [name, level] of entries<TableName, 'read' | 'readWrite'>(access.tables)) {
      const table = resources.tables[name];
      const indexArns = tables[name].indexes.map((index) => `${table.tableArn}/index/${index.name}`);
      allow(tableActions.read, [table.tableArn]);
      // Queries on the catalog's GSIs; items are only read through an index, never written.
      if (indexArns.length > 0) allow(['dynamodb:Query'], indexArns);
      if (level === 'readWrite') allow(tableActions.write, [table.tableArn]);
      setEnv(tables[name].envVar, table.tableName);
    }

    if (access.ownerLimits === 'update') {
      const entities = resources.tables.entities;
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:UpdateItem'],
          resources: [entities.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USER#*', 'ORG#*'] } },
        }),
      );
      setEnv(tables.entities.envVar, entities.tableName);
    }

    let objectWildcard = false;
    for (const [name, level] of entries<BucketName, 'read' | 'readWrite'>(access.buckets)) {
      const bucket = resources.buckets[name];
      allow(bucketActions.readBucket, [bucket.bucketArn]);
      allow(
        level === 'readWrite'
          ? [...bucketActions.readObjects, ...bucketActions.writeObjects]
          : bucketActions.readObjects,
        [bucket.arnForObjects('*')],
      );
      objectWildcard = true;
      setEnv(buckets[name].envVar, bucket.bucketName);
    }

    for (const [name, level] of entries<QueueName, keyof typeof queueActions>(access.queues)) {
      const queue = resources.queues[name];
      allow(queueActions[level], [queue.queueArn]);
      setEnv(queues[name].envVar, queue.queueUrl);
    }

    for (const [name, level] of entries<StateMachineName, 'startSync' | 'start' | 'stop'>(
      access.stateMachines,
    )) {
      const machine = resources.stateMachines?.[name];
      if (!machine) throw new Error(`State machine ${name} is not available to ${fn.node.path}`);
      if (level === 'startSync' && stateMachines[name].type !== 'EXPRESS') {
        throw new Error(
          `State machine ${name} is ${stateMachines[name].type}; only EXPRESS machines start sync`,
        );
      }
      // StopExecution acts on an execution, whose ARN is the machine's with `execution:` and its name.
      const target =
        level === 'stop'
          ? cdk.Stack.of(fn).formatArn({
              service: 'states',
              resource: 'execution',
              resourceName: `${cdk.Fn.select(6, cdk.Fn.split(':', machine.stateMachineArn))}:*`,
              arnFormat: cdk.ArnFormat.COLON_RESOURCE_NAME,
            })
          : machine.stateMachineArn;
      allow(stateMachineActions[level], [target]);
      setEnv(stateMachines[name].envVar, machine.stateMachineArn);
      if (level === 'stop' && fn.role) {
        NagSuppressions.addResourceSuppressions(
          fn.role,
          [
            {
              id: 'AwsSolutions-IAM5',
              reason:
                'StopExecution acts on an execution, named by the task id that the caller cancels; only ' +
                'known at run time. The wildcard is bounded to the executions of this one state machine.',
              appliesTo: [{ regex: '/^Resource::arn:<AWS::Partition>:states:.*:execution:.*:\\*$/g' }],
            },
          ],
          true,
        );
      }
    }

    if (access.schedules === 'manage') {
      const group = resources.scheduleGroup;
      if (!group) throw new Error(`The schedule group is not available to ${fn.node.path}`);
      group.grantManage(fn);
      for (const [name, value] of Object.entries(group.environment)) setEnv(name, value);
    }

    for (const [name, level] of entries<KeyName, KeyAccess>(access.keys)) {
      const key = resources.keys[name];
      const contextKey = `kms:EncryptionContext:${keys[name].encryptionContextKey}`;
      // Only with the catalog's encryption context entry present, so every data key is bound to one.
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [...keyActions[level]],
          resources: [key.keyArn],
          conditions: { Null: { [contextKey]: 'false' } },
        }),
      );
      setEnv(keys[name].envVar, key.keyArn);
    }

    for (const [name] of entries<SecretName, 'read'>(access.secrets)) {
      const secret = resources.secrets[name];
      allow(['secretsmanager:GetSecretValue'], [secret.secretArn]);
      setEnv(secrets[name].envVar, secret.secretArn);
    }

    if (access.models === 'invoke') {
      const { partition, account } = cdk.Stack.of(this);
      allow(
        ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
        [
          `arn:${partition}:bedrock:*::foundation-model/*`,
          `arn:${partition}:bedrock:*:${account}:inference-profile/*`,
        ],
      );
      if (fn.role) {
        NagSuppressions.addResourceSuppressions(
          fn.role,
          [
            {
              id: 'AwsSolutions-IAM5',
              reason:
                'Workflow authors choose the Bedrock model per agent block at run time, so invocation is ' +
                "granted on foundation models and this account's inference profiles in any region; only " +
                'the two invoke actions are allowed, nothing that manages models.',
              appliesTo: [{ regex: '/^Resource::arn:<AWS::Partition>:bedrock:\\*:.*\\/\\*$/g' }],
            },
          ],
          true,
        );
      }
    }

    if (access.email === 'send') {
      const { partition, region, account } = cdk.Stack.of(this);
      allow(['ses:SendEmail', 'ses:SendRawEmail'], [`arn:${partition}:ses:${region}:${account}:identity/*`]);
      if (fn.role) {
        NagSuppressions.addResourceSuppressions(
          fn.role,
          [
            {
              id: 'AwsSolutions-IAM5',
              reason:
                'Notification e-mail is sent from the address set in EMAIL_FROM, an SES identity the operator ' +
                "verifies after deployment, so sending is granted on this account's SES identities in this " +
                'region; only the two send actions are allowed.',
              appliesTo: [
                {
                  regex:
                    '/^Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity\\/\\*$/g',
                },
              ],
            },
          ],
          true,
        );
      }
    }

    if (objectWildcard && fn.role) {
      NagSuppressions.addResourceSuppressions(
        fn.role,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'Object keys in the files bucket are generated at run time (uploads, run outputs, trace spans), ' +
              'so object actions are granted on <bucket ARN>/*; actions are listed one by one and the ' +
              'catalog decides read or readWrite per function.',
            appliesTo: [{ regex: '/^Resource::.*Bucket.*\\/\\*$/g' }],
          },
        ],
        true,
      );
    }
  }
}

function entries<K extends string, V>(record: Partial<Record<K, V>> | undefined): [K, V][] {
  return Object.entries(record ?? {}) as [K, V][];
}
