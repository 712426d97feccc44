/** The wiring of notifications: the queue consumer, the no-activity schedule, what the workers may do. */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { workers } from '../../catalog/routes';
import { asList, logicalIdOf, statementsOfRole, synthesizeApp } from './app';

const { stacks, byStack } = synthesizeApp();
const execution = byStack(stacks.execution);

describe('notification workers', () => {
  it('consume the notifications queue with partial batch failures', () => {
    // Prepare
    const fn = stacks.execution.workers.notificationsWorker.function;

    // Assess
    execution.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(fn) },
      BatchSize: workers.notificationsWorker.trigger.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('NotificationsQueue(?!Dead)') },
    });
  });

  it('may delay a message (retries), send e-mail through SES identities of the account, and decrypt secrets', () => {
    // Act
    const actions = statementsOfRole(
      execution.resources,
      logicalIdOf(stacks.execution.workers.notificationsWorker.role),
    ).flatMap((statement) => asList(statement.Action));

    // Assess
    expect(actions).toEqual(
      expect.arrayContaining([
        'sqs:ChangeMessageVisibility',
        'sqs:SendMessage',
        'ses:SendEmail',
        'ses:SendRawEmail',
        'kms:Decrypt',
      ]),
    );
    expect(actions).not.toContain('kms:Encrypt');
  });

  it('check the no-activity rules every 15 minutes', () => {
    // Prepare
    const fn = stacks.execution.workers.notificationsInactivity.function;

    // Assess
    execution.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] } })],
    });
  });

  it('let Finalize publish completion events and nothing more on the queue', () => {
    // Act
    const actions = statementsOfRole(
      execution.resources,
      logicalIdOf(stacks.execution.workers.executionFinalize.role),
    )
      .flatMap((statement) => asList(statement.Action))
      .filter((action) => action.startsWith('sqs:'));

    // Assess
    expect(actions.sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
  });
});
