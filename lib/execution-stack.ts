/**
 * The execution stack: the step and finalize workers, and the two state machines (Express for sync
 * runs, Standard for async runs) built from the catalogue's single definition.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { executionDefinition } from '../catalog/execution-definition';
import { type StateMachineName, stateMachines } from '../catalog/resources';
import { workers } from '../catalog/routes';
import { ServiceFunction } from './constructs/service-function';
import { pascal } from './data-stack';
import type { ServiceResources } from './service-resources';

export type WorkerId = keyof typeof workers;

export interface ExecutionStackProps extends StackProps {
  readonly resources: ServiceResources;
}

export class ExecutionStack extends Stack {
  readonly workers = {} as Record<WorkerId, ServiceFunction>;
  readonly stateMachines = {} as Record<StateMachineName, sfn.StateMachine>;

  constructor(scope: Construct, id: string, props: ExecutionStackProps) {
    super(scope, id, { description: 'Workflow service: execution workers and state machines', ...props });

    for (const worker of Object.values(workers)) {
      this.workers[worker.id] = new ServiceFunction(this, worker.id, {
        entry: worker.entry,
        description: `${worker.id}: ${worker.summary}`,
        access: worker.access,
        resources: props.resources,
        memoryInMb: worker.memoryInMb,
        timeoutInSeconds: worker.timeoutInSeconds,
      });
    }
    const step = this.workers.executionStep.function;
    const finalize = this.workers.executionFinalize.function;

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
        definitionSubstitutions: {
          StepFunctionArn: step.functionArn,
          FinalizeFunctionArn: finalize.functionArn,
        },
        tracingEnabled: true,
        logs: {
          destination: logGroup,
          level: sfn.LogLevel.ALL,
          // Inputs and outputs are user data; the run itself is recorded in the execution log table.
          includeExecutionData: false,
        },
      });
      // Exactly the two functions, unqualified, as the definition names them (no `:*` versions).
      stateMachine.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['lambda:InvokeFunction'],
          resources: [step.functionArn, finalize.functionArn],
        }),
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
      this.stateMachines[name] = stateMachine;
    }
  }
}
