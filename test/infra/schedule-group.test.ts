/** The schedule group construct alone: the group, the role the schedules assume, and the grant to manage them. */
import './cdk-outdir';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { WorkflowScheduleGroup } from '../../lib/constructs/schedule-group';

function build(options: { encrypted?: boolean } = {}) {
  const app = new App({ autoSynth: false });
  const stack = new Stack(app, 'Schedules', { env: { account: '123456789012', region: 'eu-central-1' } });
  const queue = new sqs.Queue(stack, 'JobsQueue', {
    enforceSSL: true,
    ...(options.encrypted
      ? {
          encryption: sqs.QueueEncryption.KMS,
          encryptionMasterKey: new kms.Key(stack, 'QueueKey', { enableKeyRotation: true }),
        }
      : { encryption: sqs.QueueEncryption.SQS_MANAGED }),
  });
  const group = new WorkflowScheduleGroup(stack, 'WorkflowSchedules', {
    queue,
    groupName: 'workflow-schedules',
  });
  const manager = new iam.Role(stack, 'Manager', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
  });
  group.grantManage(manager);
  return { app, stack, queue, group, manager, template: Template.fromStack(stack) };
}

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };

function statementsOf(template: Template, roleLogicalId: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleLogicalId }]) },
  });
  return Object.values(policies).flatMap(
    (policy) =>
      (policy as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
        .Statement,
  );
}

const logicalIdOf = (stack: Stack, role: iam.Role) =>
  stack.getLogicalId(role.node.defaultChild as iam.CfnRole);

describe('WorkflowScheduleGroup', () => {
  it('creates the schedule group with its name', () => {
    // Act
    const { template, group } = build();

    // Assess
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'workflow-schedules' });
    expect(group.groupName).toBe('workflow-schedules');
  });

  it('names the group uniquely when no name is given', () => {
    // Prepare
    const stack = new Stack(new App({ autoSynth: false }), 'Unnamed');
    const queue = new sqs.Queue(stack, 'Queue');

    // Act
    const group = new WorkflowScheduleGroup(stack, 'Schedules', { queue });

    // Assess
    expect(group.groupName).toMatch(/^[A-Za-z0-9]+$/);
    expect(group.groupName.length).toBeLessThanOrEqual(64);
  });

  it('lets only EventBridge Scheduler of this account assume the role', () => {
    // Act
    const { template, stack, group } = build();

    // Assess
    const role = template.findResources('AWS::IAM::Role')[logicalIdOf(stack, group.role)] as {
      Properties: { AssumeRolePolicyDocument: { Statement: unknown[] } };
    };
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': '123456789012' } },
      },
    ]);
  });

  it('lets the role send to the queue and do nothing else', () => {
    // Act
    const { template, stack, group, queue } = build();

    // Assess
    expect(statementsOf(template, logicalIdOf(stack, group.role))).toEqual([
      {
        Action: 'sqs:SendMessage',
        Effect: 'Allow',
        Resource: stack.resolve(queue.queueArn),
      },
    ]);
  });

  it("lets the role use the queue's key when the queue has one", () => {
    // Act
    const { template, stack, group, queue } = build({ encrypted: true });

    // Assess
    const statements = statementsOf(template, logicalIdOf(stack, group.role));
    expect(statements).toContainEqual({
      Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
      Effect: 'Allow',
      Resource: stack.resolve(queue.encryptionMasterKey?.keyArn),
    });
    expect(statements.flatMap((statement) => statement.Action)).toEqual([
      'sqs:SendMessage',
      'kms:GenerateDataKey',
      'kms:Decrypt',
    ]);
  });

  it("lets a managing function change this group's schedules and pass only this role, only to the scheduler", () => {
    // Act
    const { template, stack, group, manager } = build();

    // Assess
    const statements = statementsOf(template, logicalIdOf(stack, manager));
    expect(statements).toEqual([
      {
        Action: [
          'scheduler:CreateSchedule',
          'scheduler:UpdateSchedule',
          'scheduler:DeleteSchedule',
          'scheduler:GetSchedule',
        ],
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':scheduler:eu-central-1:123456789012:schedule/workflow-schedules/*',
            ],
          ],
        },
      },
      {
        Action: 'iam:PassRole',
        Effect: 'Allow',
        Resource: stack.resolve(group.role.roleArn),
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      },
    ]);
  });

  it('gives the environment a managing function needs, named as the catalog names it', () => {
    // Act
    const { stack, group, queue } = build();

    // Assess
    expect(stack.resolve(group.environment)).toEqual({
      SCHEDULE_GROUP_NAME: 'workflow-schedules',
      SCHEDULER_ROLE_ARN: stack.resolve(group.role.roleArn),
      SCHEDULE_TARGET_QUEUE_ARN: stack.resolve(queue.queueArn),
    });
  });

  it('passes the AwsSolutions checks', () => {
    // Prepare
    const { app, stack } = build();

    // Act
    Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
    app.synth();

    // Assess
    const findings = Annotations.fromStack(stack)
      .findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))
      .map((finding) => `${finding.id}: ${String(finding.entry.data).split('\n')[0]}`);
    // The test's own queue has no dead-letter queue; the service's queues do.
    expect(findings.filter((finding) => !finding.includes('AwsSolutions-SQS3'))).toEqual([]);
  });
});
