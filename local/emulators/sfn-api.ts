/**
 * Step Functions' API (the calls of adapters/aws/sfn-execution-starter.ts) over the in-process state
 * machine (./step-functions.ts): StartSyncExecution on the Express machine, StartExecution and
 * StopExecution on the Standard one, with the state machine ARNs the local emulators name.
 */
import type { StateMachineStarter } from '../../core/runs/by-reference';
import type { ExecutionRequest } from '../../core/runs/types';
import { AwsApiError, type AwsApiService } from './aws-api-server';

export interface SfnApiOptions {
  starter: StateMachineStarter;
  syncStateMachineArn: string;
  asyncStateMachineArn: string;
}

const seconds = () => Date.now() / 1000;

function requestOf(body: Record<string, unknown>): ExecutionRequest {
  if (typeof body.input !== 'string') throw new AwsApiError('InvalidExecutionInput', 'input is required');
  return JSON.parse(body.input) as ExecutionRequest;
}

export function createSfnApi(options: SfnApiOptions): AwsApiService {
  const executionArn = (machineArn: string, name: unknown) =>
    `${machineArn.replace(':stateMachine:', ':execution:')}:${String(name)}`;
  const expectMachine = (body: Record<string, unknown>, arn: string) => {
    if (body.stateMachineArn !== arn)
      throw new AwsApiError(
        'StateMachineDoesNotExist',
        `State Machine Does Not Exist: '${body.stateMachineArn}'`,
      );
  };
  return {
    claims: { target: 'AWSStepFunctions' },
    async handle({ operation, body }) {
      switch (operation) {
        case 'StartSyncExecution': {
          expectMachine(body, options.syncStateMachineArn);
          const startDate = seconds();
          const arn = executionArn(options.syncStateMachineArn, body.name);
          try {
            const output = await options.starter.startSync(requestOf(body));
            return {
              executionArn: arn,
              startDate,
              stopDate: seconds(),
              status: 'SUCCEEDED',
              output: JSON.stringify(output),
            };
          } catch (error) {
            const failure = error as Error;
            return {
              executionArn: arn,
              startDate,
              stopDate: seconds(),
              status: 'FAILED',
              error: failure.name,
              cause: failure.message,
            };
          }
        }
        case 'StartExecution':
          expectMachine(body, options.asyncStateMachineArn);
          await options.starter.startAsync(requestOf(body));
          return {
            executionArn: executionArn(options.asyncStateMachineArn, body.name),
            startDate: seconds(),
          };
        case 'StopExecution': {
          const arn = String(body.executionArn ?? '');
          await options.starter.stopAsync(arn.slice(arn.lastIndexOf(':') + 1), String(body.cause ?? ''));
          return { stopDate: seconds() };
        }
        default:
          throw new AwsApiError(
            'UnknownOperationException',
            `Step Functions ${operation} is not served locally`,
          );
      }
    },
  };
}
