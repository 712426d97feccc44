/**
 * The execution stack: the workers of the catalog, the two state machines (Express for sync
 * runs, Standard for async runs) built from its single definition, and what starts each worker as
 * its `trigger` says: a Task of the machines, an SQS event source (with partial batch failures) on
 * a queue or its dead-letter queue, or an EventBridge rule on the end of an execution.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { executionDefinition, taskWorkers } from '../catalog/execution-definition';
import { type QueueName, type StateMachineName, stateMachines } from '../catalog/resources';
import { type WorkerDefinition, workers } from '../catalog/routes';
import { ServiceFunction } from './constructs/service-function';
import { pascal } from './data-stack';
import type { ServiceResources } from './service-resources';

export type WorkerId = keyof typeof workers;

/** The workers that an SQS queue (or its dead-letter queue) starts. */
type QueueWorkerId = {
  [Id in WorkerId]: (typeof workers)[Id]['trigger']['kind'] extends 'queue' ? Id : never;
}[WorkerId];

/**
 * The most instances of each queue's worker that its SQS event source runs at once (Lambda's
 * MaximumConcurrency, 2 to 1,000). Without it, a burst of one tenant's async runs or notifications
 * scales the worker up to the account's whole Lambda concurrency and throttles the API's routes;
 * with it, the rest of a burst waits in the queue (not throttled, not counted as a receive).
 */
export const queueWorkerMaxConcurrency: Record<QueueWorkerId, number> = {
  jobsStart: 10,
  notificationsWorker: 10,
  jobsDeadLetter: 2,
};

export interface ExecutionStackProps extends StackProps {
  readonly resources: ServiceResources;
  /** The dead-letter queue of each catalog queue, for workers that consume one. */
  readonly deadLetterQueues: Record<QueueName, sqs.IQueue>;
}

export class ExecutionStack extends Stack {
  readonly workers = {} as Record<WorkerId, ServiceFunction>;
  readonly stateMachines = {} as Record<StateMachineName, sfn.StateMachine>;

  constructor(scope: Construct, id: string, props: ExecutionStackProps) {
    super(scope, id, { description: 'Workflow service: execution workers and state machines', ...props });

    const allWorkers = Object.values(workers) as WorkerDefinition[];
    const addWorker = (worker: WorkerDefinition, resources: ServiceResources) => {
      this.workers[worker.id as WorkerId] = new ServiceFunction(this, worker.id, {
        entry: worker.entry,
        description: `${worker.id}: ${worker.summary}`,
        access: worker.access,
        resources,
        memoryInMb: worker.memoryInMb,
        timeoutInSeconds: worker.timeoutInSeconds,
        runsBlocks: worker.runsBlocks,
        makesOutboundRequests: worker.makesOutboundRequests,
      });
      return this.workers[worker.id as WorkerId].function;
    };
    // Task workers first: the machines name them; every other worker may then use the machines.
    for (const worker of allWorkers)
      if (worker.trigger.kind === 'stateMachineTask') addWorker(worker, props.resources);
    const substitutions = Object.fromEntries(
      Object.entries(taskWorkers).map(([name, id]) => [name, this.workers[id].function.functionArn]),
    );
    const taskArns = Object.values(substitutions);

    // One definition, two machine types; the functions come in by substitution.
    const definition = JSON.stringify(executionDefinition());
    for (const [name, machine] of Object.entries(stateMachines) as [
      StateMachineName,
      (typeof stateMachines)[StateMachineName],
    ][]) {
      const logGroup = new logs.LogGroup(this, `${pascal(name)}Logs`, {
        // The vended-logs prefix keeps CloudWatch Logs' resource policy from growing per machine.
        logGroupName: `/aws/vendedlogs/states/${this.stackName}-${name}`,
        retention: logs.RetentionDays.ONE_MONTH,
      });
      const stateMachine = new sfn.StateMachine(this, `${pascal(name)}StateMachine`, {
        stateMachineType:
          machine.type === 'EXPRESS' ? sfn.StateMachineType.EXPRESS : sfn.StateMachineType.STANDARD,
        definitionBody: sfn.DefinitionBody.fromString(definition),
        definitionSubstitutions: substitutions,
        tracingEnabled: true,
        logs: {
          destination: logGroup,
          level: sfn.LogLevel.ALL,
          // Inputs and outputs are user data; the run itself is recorded in the execution log table.
          includeExecutionData: false,
        },
      });
      // Exactly the Task functions, unqualified, as the definition names them (no `:*` versions).
      stateMachine.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: taskArns }),
      );
      NagSuppressions.addResourceSuppressions(
        stateMachine,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'Step Functions logging to CloudWatch Logs uses the log-delivery APIs (logs:CreateLogDelivery, ' +
              'logs:DescribeResourcePolicies, ...) and X-Ray tracing uses xray:PutTraceSegments and friends; ' +
              'none of these support resource-level permissions, so AWS documents Resource "*" for them.',
            appliesTo: ['Resource::*'],
          },
        ],
        true,
      );
      // Exported whether or not a route starts or stops it today (see DataStack.exportForCodeStacks).
      this.exportValue(stateMachine.stateMachineArn);
      this.stateMachines[name] = stateMachine;
    }

    const resources = { ...props.resources, stateMachines: this.stateMachines };
    for (const worker of allWorkers) {
      const { trigger } = worker;
      if (trigger.kind === 'stateMachineTask') continue;
      const fn = addWorker(worker, resources);
      if (trigger.kind === 'queue') {
        const queue = trigger.deadLetter
          ? props.deadLetterQueues[trigger.queue]
          : props.resources.queues[trigger.queue];
        fn.addEventSource(
          new SqsEventSource(queue, {
            batchSize: trigger.batchSize,
            reportBatchItemFailures: true,
            maxConcurrency: queueWorkerMaxConcurrency[worker.id as QueueWorkerId],
          }),
        );
      } else if (trigger.kind === 'every') {
        new events.Rule(this, `${pascal(worker.id)}Rule`, {
          description: `${worker.id}: every ${trigger.minutes} minutes`,
          schedule: events.Schedule.rate(Duration.minutes(trigger.minutes)),
          targets: [new targets.LambdaFunction(fn, { retryAttempts: 2 })],
        });
      } else {
        new events.Rule(this, `${pascal(worker.id)}Rule`, {
          description: `${worker.id}: executions of ${trigger.stateMachine} that ended outside their Finalize`,
          eventPattern: {
            source: ['aws.states'],
            detailType: ['Step Functions Execution Status Change'],
            detail: {
              status: ['FAILED', 'TIMED_OUT', 'ABORTED'],
              stateMachineArn: [this.stateMachines[trigger.stateMachine].stateMachineArn],
            },
          },
          targets: [new targets.LambdaFunction(fn, { retryAttempts: 8 })],
        });
      }
    }
  }
}
