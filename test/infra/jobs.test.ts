/** The wiring of asynchronous runs: queue consumers, dead-letter handling, alarms and job expiry. */
import { Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { queues } from '../../catalog/resources';
import { workers } from '../../catalog/routes';
import { queueWorkerMaxConcurrency } from '../../lib/execution-stack';
import { asList, logicalIdOf, ofType, statementsOfRole, synthesizeApp } from './app';

const { stacks, byStack } = synthesizeApp();
const execution = byStack(stacks.execution);
const data = byStack(stacks.data);

describe('job workers', () => {
  it('starts queued jobs from the jobs queue with partial batch failures', () => {
    const fn = stacks.execution.workers.jobsStart.function;
    execution.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(fn) },
      BatchSize: workers.jobsStart.trigger.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('JobsQueue(?!Dead)') },
    });
  });

  it("caps each queue worker's concurrency, so a burst of one tenant's jobs leaves the API its share", () => {
    // Prepare
    const mappings = ofType(execution.resources, 'AWS::Lambda::EventSourceMapping');

    // Act
    const byFunction = Object.fromEntries(
      mappings.map(([, mapping]) => [
        (mapping.Properties.FunctionName as { Ref: string }).Ref,
        mapping.Properties.ScalingConfig,
      ]),
    );

    // Assess: Lambda takes 2 to 1,000.
    expect(mappings).toHaveLength(Object.keys(queueWorkerMaxConcurrency).length);
    for (const [id, maximum] of Object.entries(queueWorkerMaxConcurrency)) {
      const fn = stacks.execution.workers[id as keyof typeof queueWorkerMaxConcurrency].function;
      expect(byFunction[logicalIdOf(fn)], id).toEqual({ MaximumConcurrency: maximum });
      expect(maximum).toBeGreaterThanOrEqual(2);
      expect(maximum).toBeLessThanOrEqual(1000);
    }
    expect(queueWorkerMaxConcurrency.jobsStart).toBe(10);
  });

  it('fails the jobs of dead-lettered messages from the jobs dead-letter queue', () => {
    const fn = stacks.execution.workers.jobsDeadLetter.function;
    execution.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(fn) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('JobsDeadLetterQueue') },
    });
  });

  it('lets the start worker start the Standard machine and nothing else of Step Functions', () => {
    const fn = stacks.execution.workers.jobsStart;
    const actions = statementsOfRole(execution.resources, logicalIdOf(fn.role))
      .flatMap((statement) => asList(statement.Action))
      .filter((action) => action.startsWith('states:'));
    expect(actions).toEqual(['states:StartExecution']);
  });

  it("lets the start worker update the limits table, where a schedule fire's run takes its slot", () => {
    // Prepare
    const fn = stacks.execution.workers.jobsStart;

    // Act
    const updates = statementsOfRole(execution.resources, logicalIdOf(fn.role)).filter(
      (statement) =>
        asList(statement.Action).includes('dynamodb:UpdateItem') &&
        JSON.stringify(statement.Resource).includes('LimitsTable'),
    );

    // Assess
    expect(updates).toHaveLength(1);
  });

  it('lets the cancel route stop executions of the Standard machine only', () => {
    const fn = stacks.routes.execution.functions.cancelJob;
    const stack = byStack(Stack.of(fn));
    const statements = statementsOfRole(stack.resources, logicalIdOf(fn.role)).filter((statement) =>
      asList(statement.Action).includes('states:StopExecution'),
    );
    expect(statements).toHaveLength(1);
    expect(JSON.stringify(statements[0].Resource)).toContain(':execution:');
    expect(JSON.stringify(statements[0].Resource)).toContain('ExecutionAsyncStateMachine');
  });

  it('sends async executions that end failed, timed out or aborted to the run-ended worker', () => {
    const fn = stacks.execution.workers.jobsRunEnded.function;
    execution.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: {
          status: ['FAILED', 'TIMED_OUT', 'ABORTED'],
          stateMachineArn: [{ Ref: logicalIdOf(stacks.execution.stateMachines.executionAsync) }],
        },
      },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(fn), 'Arn'] } })],
    });
  });
});

describe('dead-letter alarms', () => {
  const alarms = ofType(data.resources, 'AWS::CloudWatch::Alarm');
  const alarmOf = (queueId: string) => {
    const found = alarms.filter(([, alarm]) => JSON.stringify(alarm.Properties.Dimensions).includes(queueId));
    expect(found, queueId).toHaveLength(1);
    return found[0][1].Properties;
  };

  it('alarms on the first message in every dead-letter queue, to the alarm topic', () => {
    expect(alarms).toHaveLength(Object.keys(queues).length);
    for (const name of Object.keys(queues) as (keyof typeof queues)[]) {
      expect(alarmOf(logicalIdOf(stacks.data.deadLetterQueues[name])), name).toMatchObject({
        Namespace: 'AWS/SQS',
        Threshold: 1,
        Period: 60,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: logicalIdOf(stacks.data.alarmTopic) }],
      });
    }
  });

  it('counts the receives of the jobs dead-letter queue, which its worker drains at once', () => {
    // Prepare: the jobs dead-letter worker deletes each message as soon as it has failed its job,
    // so the queue never shows a visible message for a whole minute.
    expect(workers.jobsDeadLetter.trigger).toMatchObject({ queue: 'jobs', deadLetter: true });

    // Act
    const jobs = alarmOf(logicalIdOf(stacks.data.deadLetterQueues.jobs));
    const notifications = alarmOf(logicalIdOf(stacks.data.deadLetterQueues.notifications));

    // Assess: a redriven message counts as received, never as sent; a queue no worker drains keeps
    // the visible-messages alarm.
    expect(jobs).toMatchObject({ MetricName: 'NumberOfMessagesReceived', Statistic: 'Sum' });
    expect(notifications).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Statistic: 'Maximum',
    });
  });

  it('encrypts the alarm topic with a key of its own that CloudWatch may use to publish', () => {
    // Prepare
    const topic = data.resources[logicalIdOf(stacks.data.alarmTopic)].Properties;
    const keyId = logicalIdOf(stacks.data.alarmTopicKey);
    const key = data.resources[keyId];

    // Act
    const statements = (key.Properties.KeyPolicy as { Statement: Record<string, unknown>[] }).Statement;
    const cloudWatch = statements.filter(
      (statement) =>
        JSON.stringify(statement.Principal) === JSON.stringify({ Service: 'cloudwatch.amazonaws.com' }),
    );

    // Assess: not alias/aws/sns, whose policy CloudWatch is not in and nobody can change.
    expect(topic.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(JSON.stringify(topic)).not.toContain('alias/aws/sns');
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(cloudWatch).toHaveLength(1);
    expect(cloudWatch[0]).toMatchObject({
      Effect: 'Allow',
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
    });
  });
});

describe('limits', () => {
  it('keeps buckets and usage in a table of their own, whose run marks expire through ttl', () => {
    const limits = data.resources[logicalIdOf(stacks.data.tables.limits)].Properties;
    expect(limits.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    expect(limits.GlobalSecondaryIndexes).toBeUndefined();
  });
});

describe('job expiry', () => {
  it('lets DynamoDB remove expired jobs through the ttl attribute of the executions table', () => {
    data.template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    });
  });
});

describe('workflow schedules', () => {
  it('has a schedule group whose role may only send to the jobs queue, assumed by the scheduler', () => {
    data.template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    const role = stacks.data.scheduleGroup.role;
    data.template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' } })],
      },
    });
    const actions = statementsOfRole(data.resources, logicalIdOf(role)).flatMap((statement) =>
      asList(statement.Action),
    );
    expect(actions.filter((action) => action.startsWith('sqs:'))).toEqual(['sqs:SendMessage']);
  });

  it('lets the routes that manage schedules create them and pass the scheduler role, and no other', () => {
    for (const id of [
      'putSchedule',
      'deleteSchedule',
      'deployWorkflow',
      'undeployWorkflow',
      'deleteWorkflow',
    ]) {
      const fn = Object.values(stacks.routes).find((stack) => stack.functions[id])?.functions[id];
      if (!fn) throw new Error(`No function ${id}`);
      const actions = statementsOfRole(byStack(Stack.of(fn)).resources, logicalIdOf(fn.role)).flatMap(
        (statement) => asList(statement.Action),
      );
      expect(actions, id).toEqual(expect.arrayContaining(['scheduler:CreateSchedule', 'iam:PassRole']));
    }
    const get = stacks.routes.triggers.functions.getSchedule;
    const getActions = statementsOfRole(byStack(Stack.of(get)).resources, logicalIdOf(get.role)).flatMap(
      (statement) => asList(statement.Action),
    );
    expect(getActions.some((action) => action.startsWith('scheduler:'))).toBe(false);
  });
});
