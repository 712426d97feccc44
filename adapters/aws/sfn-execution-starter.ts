/** ExecutionStarter on Step Functions: the Express machine for sync runs, the Standard one for async. */
import { type SFNClient, StartExecutionCommand, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { stateMachines } from '../../catalog/resources';
import type { ExecutionAnswer, ExecutionRequest, ExecutionStarter } from '../../core/runs/types';
import { requireEnv, sfnClient } from './clients';

export interface SfnExecutionStarterOptions {
  client: SFNClient;
  syncStateMachineArn: string;
  asyncStateMachineArn?: string;
}

export class SfnExecutionStarter implements ExecutionStarter {
  constructor(private readonly options: SfnExecutionStarterOptions) {}

  static fromEnv(): SfnExecutionStarter {
    return new SfnExecutionStarter({
      client: sfnClient(),
      syncStateMachineArn: requireEnv(stateMachines.executionSync.envVar),
      asyncStateMachineArn: process.env[stateMachines.executionAsync.envVar],
    });
  }

  async startSync(request: ExecutionRequest): Promise<ExecutionAnswer> {
    const result = await this.options.client.send(
      new StartSyncExecutionCommand({
        stateMachineArn: this.options.syncStateMachineArn,
        name: request.executionId,
        input: JSON.stringify(request),
      }),
    );
    // Finalize catches every run failure, so a failed Express execution means the machine itself broke.
    if (result.status !== 'SUCCEEDED' || !result.output) {
      throw new Error(
        `Sync execution ${request.executionId} ended ${result.status}: ${result.error} ${result.cause}`,
      );
    }
    return JSON.parse(result.output) as ExecutionAnswer;
  }

  async startAsync(request: ExecutionRequest): Promise<void> {
    const arn = this.options.asyncStateMachineArn;
    if (!arn) throw new Error(`${stateMachines.executionAsync.envVar} is not set`);
    await this.options.client.send(
      new StartExecutionCommand({
        stateMachineArn: arn,
        name: request.executionId,
        input: JSON.stringify(request),
      }),
    );
  }
}
