/** ExecutionStarter on Step Functions: the Express machine for sync runs, the Standard one for async. */
import {
  type SFNClient,
  StartExecutionCommand,
  StartSyncExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { stateMachines } from '../../catalog/resources';
import type { FinalizeOutput, StateMachineStarter } from '../../core/runs/by-reference';
import type { ExecutionRequest } from '../../core/runs/types';
import { sfnClient } from './sfn-client';
import { optionalEnv } from './require-env';

export interface SfnExecutionStarterOptions {
  client: SFNClient;
  /** Absent in functions that only start async runs (the jobs worker): CDK gives them only the Standard machine. */
  syncStateMachineArn?: string;
  asyncStateMachineArn?: string;
}

export class SfnExecutionStarter implements StateMachineStarter {
  constructor(private readonly options: SfnExecutionStarterOptions) {}

  static fromEnv(): SfnExecutionStarter {
    return new SfnExecutionStarter({
      client: sfnClient(),
      syncStateMachineArn: optionalEnv(stateMachines.executionSync.envVar),
      asyncStateMachineArn: optionalEnv(stateMachines.executionAsync.envVar),
    });
  }

  /** Finalize's output: the answer, or where a large one was put (core/runs/by-reference.ts). */
  async startSync(request: ExecutionRequest): Promise<FinalizeOutput> {
    const result = await this.options.client.send(
      new StartSyncExecutionCommand({
        stateMachineArn: this.syncArn(),
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
    return JSON.parse(result.output) as FinalizeOutput;
  }

  /**
   * A Standard execution's name is unique for 90 days: starting the same task again (a redelivered
   * message) with the same input returns the running execution, and with another input (a later
   * `startedAt`) fails with ExecutionAlreadyExists; both mean the run exists.
   */
  async startAsync(request: ExecutionRequest): Promise<void> {
    try {
      await this.options.client.send(
        new StartExecutionCommand({
          stateMachineArn: this.asyncArn(),
          name: request.executionId,
          input: JSON.stringify(request),
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ExecutionAlreadyExists') throw error;
    }
  }

  async stopAsync(executionId: string, reason: string): Promise<void> {
    try {
      await this.options.client.send(
        new StopExecutionCommand({ executionArn: this.executionArn(executionId), cause: reason }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ExecutionDoesNotExist') throw error;
    }
  }

  private syncArn(): string {
    const arn = this.options.syncStateMachineArn;
    if (!arn) throw new Error(`${stateMachines.executionSync.envVar} is not set`);
    return arn;
  }

  private asyncArn(): string {
    const arn = this.options.asyncStateMachineArn;
    if (!arn) throw new Error(`${stateMachines.executionAsync.envVar} is not set`);
    return arn;
  }

  /** `arn:<p>:states:<r>:<a>:stateMachine:<name>` names its executions `…:execution:<name>:<id>`. */
  private executionArn(executionId: string): string {
    return `${this.asyncArn().replace(':stateMachine:', ':execution:')}:${executionId}`;
  }
}
