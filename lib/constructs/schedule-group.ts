/**
 * The EventBridge Scheduler side of workflow schedules: the schedule group that holds one schedule
 * per scheduled workflow, and the role those schedules assume to deliver each fire to the jobs
 * queue. The role may do nothing but send to that queue (and use the queue's key, if it has one);
 * the functions that manage schedules get the schedule actions on this group only, and may pass
 * this role only, only to EventBridge Scheduler.
 */
import { Names, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { scheduleGroups } from '../../catalog/resources';

export interface WorkflowScheduleGroupProps {
  /** Where every fire is sent: the jobs queue. */
  readonly queue: sqs.IQueue;
  /** Default: a name unique to this construct within its app. */
  readonly groupName?: string;
}

/** What a function that manages schedules may do with them. */
export const scheduleManageActions = [
  'scheduler:CreateSchedule',
  'scheduler:UpdateSchedule',
  'scheduler:DeleteSchedule',
  'scheduler:GetSchedule',
] as const;

export class WorkflowScheduleGroup extends Construct {
  readonly group: scheduler.CfnScheduleGroup;
  readonly groupName: string;
  /** Assumed by EventBridge Scheduler to send each fire to the queue. */
  readonly role: iam.Role;
  readonly queue: sqs.IQueue;
  /** The catalog's variables that tell a managing function where schedules go. */
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: WorkflowScheduleGroupProps) {
    super(scope, id);
    this.queue = props.queue;
    this.groupName = props.groupName ?? Names.uniqueResourceName(this, { maxLength: 64 });
    this.group = new scheduler.CfnScheduleGroup(this, 'Group', { name: this.groupName });

    // Only schedules of this account may assume it (the confused-deputy guard AWS recommends).
    this.role = new iam.Role(this, 'Role', {
      description: 'Assumed by EventBridge Scheduler to send workflow schedule fires to the jobs queue',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.queue.queueArn] }),
    );
    const key = props.queue.encryptionMasterKey;
    if (key) {
      this.role.addToPolicy(
        new iam.PolicyStatement({ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resources: [key.keyArn] }),
      );
    }

    const group = scheduleGroups.workflows;
    this.environment = {
      [group.envVar]: this.groupName,
      [group.roleEnvVar]: this.role.roleArn,
      [group.targetArnEnvVar]: props.queue.queueArn,
    };
  }

  /** ARN pattern of the schedules in this group. */
  get schedulesArn(): string {
    const stack = Stack.of(this);
    return stack.formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.groupName}/*`,
    });
  }

  /**
   * Lets `grantee` create, update, delete and read the schedules of this group, and hand them
   * this group's role (and no other) as the role they run as.
   */
  grantManage(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions: [...scheduleManageActions],
      resourceArns: [this.schedulesArn],
    });
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['iam:PassRole'],
      resourceArns: [this.role.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    });
    const principal = grantee.grantPrincipal;
    if (principal instanceof iam.Role) {
      NagSuppressions.addResourceSuppressions(
        principal,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'Schedules are named after workflows, which are created at run time; the wildcard is ' +
              'bounded to the schedules of the one workflow schedule group.',
            appliesTo: [{ regex: '/^Resource::arn:<AWS::Partition>:scheduler:.*:schedule\\/.*\\/\\*$/g' }],
          },
        ],
        true,
      );
    }
  }
}
