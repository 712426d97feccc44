/**
 * The data stack: the catalog's DynamoDB tables, S3 bucket, SQS queues (each with its DLQ) and
 * customer-managed KMS keys, and the admin key secret. Stateful resources live here, apart from the
 * functions, so the code stacks can be replaced freely (replacing the API would otherwise also
 * replace the operators' admin key, and a replaced KMS key would strand every secret under it).
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import {
  type BucketName,
  buckets,
  type KeyName,
  keys,
  blobExpiry,
  logRetention,
  type QueueName,
  queues,
  scheduleGroups,
  type SecretName,
  secrets,
  type TableName,
  tables,
} from '../catalog/resources';
import { type WorkerDefinition, workers } from '../catalog/routes';
import { WorkflowScheduleGroup } from './constructs/schedule-group';
import type { ServiceResources } from './service-resources';

export class DataStack extends Stack {
  readonly tables = {} as Record<TableName, dynamodb.Table>;
  readonly buckets = {} as Record<BucketName, s3.Bucket>;
  readonly queues = {} as Record<QueueName, sqs.Queue>;
  readonly deadLetterQueues = {} as Record<QueueName, sqs.Queue>;
  readonly accessLogsBucket: s3.Bucket;
  readonly keys = {} as Record<KeyName, kms.Key>;
  readonly adminKeySecret: secretsmanager.Secret;
  /** Shared by the form site's distribution and the route functions (see catalog/site.ts). */
  readonly edgeSecret: secretsmanager.Secret;
  readonly secrets = {} as Record<SecretName, secretsmanager.Secret>;
  /** Where alarms go: operators subscribe (e-mail, chat, paging) to be told. */
  readonly alarmTopic: sns.Topic;
  /** Encrypts the alarm topic; its key policy lets CloudWatch publish alarms to it. */
  readonly alarmTopicKey: kms.Key;
  /** EventBridge Scheduler group of workflow schedules, each sending fires to the jobs queue. */
  readonly scheduleGroup: WorkflowScheduleGroup;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, { description: 'Workflow service: tables, files bucket, queues, admin key', ...props });

    for (const [name, definition] of Object.entries(tables) as [TableName, (typeof tables)[TableName]][]) {
      const table = new dynamodb.Table(this, `${pascal(name)}Table`, {
        partitionKey: { name: definition.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: definition.sortKey, type: dynamodb.AttributeType.STRING },
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: dynamodb.TableEncryption.AWS_MANAGED,
        ...('timeToLiveAttribute' in definition
          ? { timeToLiveAttribute: definition.timeToLiveAttribute }
          : {}),
      });
      for (const index of definition.indexes) {
        table.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
          sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
          ...('projection' in index
            ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }
            : { projectionType: dynamodb.ProjectionType.ALL }),
        });
      }
      this.tables[name] = table;
    }

    this.accessLogsBucket = new s3.Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
    });
    NagSuppressions.addResourceSuppressions(this.accessLogsBucket, [
      {
        id: 'AwsSolutions-S1',
        reason:
          'This bucket receives the server access logs of the files bucket; logging it too would need yet ' +
          'another bucket (or log into itself, which loops). It is private, TLS-only and expires logs.',
      },
    ]);

    for (const [name] of Object.entries(buckets) as [BucketName, (typeof buckets)[BucketName]][]) {
      this.buckets[name] = new s3.Bucket(this, `${pascal(name)}Bucket`, {
        blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
        encryption: s3.BucketEncryption.S3_MANAGED,
        enforceSSL: true,
        versioned: true,
        objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
        serverAccessLogsBucket: this.accessLogsBucket,
        serverAccessLogsPrefix: `${name}/`,
        // Presigned URLs carry their own authorisation; browsers (the form page) need CORS to use them.
        cors: [
          {
            allowedMethods: [s3.HttpMethods.GET, s3.HttpMethods.HEAD, s3.HttpMethods.PUT],
            allowedOrigins: ['*'],
            allowedHeaders: ['*'],
            maxAge: 3600,
          },
        ],
        lifecycleRules: [
          { abortIncompleteMultipartUploadAfter: Duration.days(7) },
          { noncurrentVersionExpiration: Duration.days(30) },
          // The large parts of log entries go with their entries (DynamoDB TTL), a day later.
          { prefix: logRetention.blobPrefix, expiration: Duration.days(logRetention.defaultInDays + 1) },
          ...Object.values(blobExpiry).map(({ prefix, afterDays }) => ({
            prefix,
            expiration: Duration.days(afterDays),
          })),
        ],
      });
    }

    // A key of our own: CloudWatch cannot use the AWS-managed alias/aws/sns key (its policy cannot
    // be changed), so alarms sent to a topic under that key would be dropped without a trace.
    this.alarmTopicKey = new kms.Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the workflow service alarm topic; CloudWatch alarms may use it to publish',
      enableKeyRotation: true,
    });
    this.alarmTopicKey.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        // Alarms of this account only (no confused deputy acting for another account's alarms).
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    );
    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: 'Workflow service alarms',
      enforceSSL: true,
      masterKey: this.alarmTopicKey,
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarmTopic.topicArn,
      description: 'Subscribe to be told when a dead-letter queue receives a message',
    });

    for (const [name, definition] of Object.entries(queues) as [QueueName, (typeof queues)[QueueName]][]) {
      const deadLetterQueue = new sqs.Queue(this, `${pascal(name)}DeadLetterQueue`, {
        retentionPeriod: Duration.days(14),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      this.deadLetterQueues[name] = deadLetterQueue;
      this.queues[name] = new sqs.Queue(this, `${pascal(name)}Queue`, {
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutInSeconds),
        retentionPeriod: Duration.days(14),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      });
      // A message in a dead-letter queue is work that failed for good: someone should look. A
      // dead-letter queue that a worker drains holds a message for moments only, never long enough
      // for "messages visible" to show it, so its alarm counts the worker's receives instead (a
      // message moved in by redrive is not counted as sent, only as received).
      const metricOptions = { period: Duration.minutes(1) };
      const alarm = new cloudwatch.Alarm(this, `${pascal(name)}DeadLetterAlarm`, {
        alarmDescription: `Messages of the ${name} queue failed ${definition.maxReceiveCount} times and were dead-lettered`,
        metric: drainedDeadLetterQueues.has(name)
          ? deadLetterQueue.metricNumberOfMessagesReceived({
              ...metricOptions,
              statistic: cloudwatch.Stats.SUM,
            })
          : deadLetterQueue.metricApproximateNumberOfMessagesVisible({
              ...metricOptions,
              statistic: cloudwatch.Stats.MAXIMUM,
            }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(new cloudwatchActions.SnsAction(this.alarmTopic));
    }

    this.scheduleGroup = new WorkflowScheduleGroup(this, 'WorkflowSchedules', {
      queue: this.queues[scheduleGroups.workflows.targetQueue],
    });

    for (const [name, definition] of Object.entries(keys) as [KeyName, (typeof keys)[KeyName]][]) {
      // Symmetric, rotated yearly by KMS (old versions keep decrypting). Kept when the stack goes:
      // deleting the key would make every value encrypted under it unreadable. The default key policy
      // trusts the account, so the functions' IAM policies (resource-access.ts) decide who may use it.
      this.keys[name] = new kms.Key(this, `${pascal(name)}Key`, {
        description: definition.description,
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    }

    for (const [name, definition] of Object.entries(secrets) as [
      SecretName,
      (typeof secrets)[SecretName],
    ][]) {
      this.secrets[name] = this.generatedSecret(
        `${pascal(name)}Secret`,
        definition.description,
        64,
        'A service-internal signing secret that no person or client ever holds; rotating it would only ' +
          'invalidate the cursors in flight. Replace it deliberately (put a new value) if it is exposed.',
      );
    }
    this.adminKeySecret = this.generatedSecret(
      'AdminApiKey',
      'The x-admin-key of the workflow service admin API',
      48,
      'The admin key is an operator credential handed to people and scripts out of band; automatic ' +
        'rotation would silently lock them out. Operators rotate it deliberately by putting a new value.',
    );
    this.edgeSecret = this.generatedSecret(
      'EdgeSecret',
      'Sent by the form site distribution to the API, so the API trusts its viewer address',
      48,
      'Resolved into the distribution and the route functions at deploy time; rotating it without a deploy ' +
        'would only make the API distrust the viewer addresses. Put a new value and deploy to change it.',
    );

    new CfnOutput(this, 'AdminApiKeySecretArn', {
      value: this.adminKeySecret.secretArn,
      description: 'Secret holding the x-admin-key: aws secretsmanager get-secret-value --secret-id <this>',
    });
    this.exportForCodeStacks();
  }

  /**
   * Exports every attribute that a function of the code stacks may reference, whether or not one
   * does today. CDK exports only what is referenced, so removing the last route that used, say, the
   * limits table would delete that export in this stack's update, which CloudFormation refuses while
   * the route's stack (updated after this one) still imports it. Same names as CDK's own exports.
   */
  private exportForCodeStacks(): void {
    const values = [
      ...Object.values(this.tables).flatMap((table) => [table.tableArn, table.tableName]),
      ...Object.values(this.buckets).flatMap((bucket) => [bucket.bucketArn, bucket.bucketName]),
      ...[...Object.values(this.queues), ...Object.values(this.deadLetterQueues)].flatMap((queue) => [
        queue.queueArn,
        queue.queueUrl,
      ]),
      ...Object.values(this.keys).map((key) => key.keyArn),
      ...[...Object.values(this.secrets), this.adminKeySecret, this.edgeSecret].map(
        (secret) => secret.secretArn,
      ),
      this.scheduleGroup.role.roleArn,
      this.accessLogsBucket.bucketName,
    ];
    for (const value of values) this.exportValue(value);
  }

  /** A random secret made by Secrets Manager, with why it is not rotated automatically (AwsSolutions-SMG4). */
  private generatedSecret(
    id: string,
    description: string,
    passwordLength: number,
    whyNotRotated: string,
  ): secretsmanager.Secret {
    const secret = new secretsmanager.Secret(this, id, {
      description,
      generateSecretString: { passwordLength, excludePunctuation: true },
    });
    NagSuppressions.addResourceSuppressions(secret, [{ id: 'AwsSolutions-SMG4', reason: whyNotRotated }]);
    return secret;
  }

  /** What the code stacks need to wire functions to these resources. */
  get resources(): ServiceResources {
    return {
      tables: this.tables,
      buckets: this.buckets,
      queues: this.queues,
      keys: this.keys,
      secrets: this.secrets,
      scheduleGroup: this.scheduleGroup,
    };
  }
}

/** The queues whose dead-letter queue a worker consumes (a `deadLetter` queue trigger). */
const drainedDeadLetterQueues = new Set<QueueName>(
  (Object.values(workers) as WorkerDefinition[]).flatMap(({ trigger }) =>
    trigger.kind === 'queue' && trigger.deadLetter ? [trigger.queue] : [],
  ),
);

export function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
