/**
 * The deployed counterparts of the catalog's tables, buckets, queues, keys and state machines, handed
 * from the stack that owns them to the stacks whose functions use them.
 */
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { WorkflowScheduleGroup } from './constructs/schedule-group';
import type {
  BucketName,
  KeyName,
  QueueName,
  SecretName,
  StateMachineName,
  TableName,
} from '../catalog/resources';

export interface ServiceResources {
  tables: Record<TableName, dynamodb.ITable>;
  buckets: Record<BucketName, s3.IBucket>;
  queues: Record<QueueName, sqs.IQueue>;
  /** Customer-managed KMS keys (envelope encryption of secrets). */
  keys: Record<KeyName, kms.IKey>;
  /** Secrets the service made for itself (cursor signing). */
  secrets: Record<SecretName, secretsmanager.ISecret>;
  /** The workflow schedule group (EventBridge Scheduler), for functions that manage schedules. */
  scheduleGroup?: WorkflowScheduleGroup;
  /** Absent while the execution stack builds its own workers (they start no state machines). */
  stateMachines?: Partial<Record<StateMachineName, sfn.IStateMachine>>;
}

/** The secret holding the admin API key (x-admin-key); readable by `auth: 'admin'` routes only. */
export const adminKeySecretEnvVar = 'ADMIN_API_KEY_SECRET_ARN';
