/**
 * The execution state machine run in process: the very definition that CDK deploys
 * (catalog/execution-definition.ts), run by aws-local-stepfunctions with the Step and Finalize Task
 * states bound to local functions instead of Lambda.
 *
 * Behaviour of aws-local-stepfunctions@3.0.0 worth knowing (checked in its sources and the tests):
 * - It calls `Promise.withResolvers` (Node 22+) in every Task; a guarded polyfill is installed below.
 * - Local Task handlers are keyed by state NAME, not by resource ARN; the starter finds the states
 *   whose `Resource` is the step or finalize ARN and binds those names.
 * - An error thrown by a Task becomes `{Error: error.name, Cause: error.message}` at the Catch's
 *   ResultPath. Lambda itself gives a JSON text as Cause for a function error
 *   (`{"errorType","errorMessage","trace"}`), so the starter re-throws handler errors in that shape:
 *   Finalize sees the same `$.failure` here as in AWS.
 * - A Task without TimeoutSeconds times out after 60 s (States.Timeout, which the definition's Catch
 *   sends to Finalize); in AWS the Lambda's own timeout applies instead.
 * - The Wait state honours `SecondsPath`; `waitOverrideMs` replaces every Wait's duration (tests).
 */
import { type StateMachineDefinition, StateMachine } from 'aws-local-stepfunctions';
import { renderExecutionDefinition } from '../../catalog/execution-definition';
import type {
  ExecutionAnswer,
  ExecutionRequest,
  ExecutionStarter,
  ExecutionState,
  StepOutcome,
} from '../../core/runs/types';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './constants';

installPromiseWithResolvers();

export const DEFAULT_FUNCTION_ARN_PREFIX = `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:`;
export const DEFAULT_STATE_MACHINE_ARN_PREFIX = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:`;

export interface LocalExecutionStarterOptions {
  /** The Step Lambda's logic. */
  step(state: ExecutionState): Promise<StepOutcome>;
  /** The Finalize Lambda's logic; its answer is what a sync run returns. */
  finalize(state: ExecutionState): Promise<ExecutionAnswer>;
  /**
   * Prefix of the ARNs in the Context Object (`$$.StateMachine.Id`, `$$.Execution.Id`), as in AWS:
   * `<prefix>stateMachine:<name>` and `<prefix>execution:<name>:<executionId>`.
   * Default `arn:aws:states:us-east-1:000000000000:`.
   */
  stateMachineArnPrefix?: string;
  /** Prefix of the function ARNs substituted into the definition. Default `arn:aws:lambda:us-east-1:000000000000:function:`. */
  functionArnPrefix?: string;
  /** Replaces the duration of every Wait state by this many milliseconds (tests). */
  waitOverrideMs?: number;
  /** Called when a background run fails (Finalize threw); defaults to console.error. Never throws out. */
  onAsyncError?(error: unknown, request: ExecutionRequest): void;
}

export interface LocalExecutionStarter extends ExecutionStarter {
  /** Resolves once every background run started so far (and any they lead to) has ended. */
  drain(): Promise<void>;
  /** Background runs still going. */
  readonly inFlight: number;
}

export function createLocalExecutionStarter(options: LocalExecutionStarterOptions): LocalExecutionStarter {
  const functionArnPrefix = options.functionArnPrefix ?? DEFAULT_FUNCTION_ARN_PREFIX;
  const stateMachineArnPrefix = options.stateMachineArnPrefix ?? DEFAULT_STATE_MACHINE_ARN_PREFIX;
  const stepArn = `${functionArnPrefix}executionStep`;
  const finalizeArn = `${functionArnPrefix}executionFinalize`;
  const { definition, machine } = parsedMachine(stepArn, finalizeArn);

  const handlers: Record<string, (input: unknown) => Promise<never>> = {};
  const waitTimeOverrides: Record<string, number> = {};
  for (const [name, state] of Object.entries(definition.States)) {
    if (state.Type === 'Task' && state.Resource === stepArn) handlers[name] = asLambda(options.step);
    if (state.Type === 'Task' && state.Resource === finalizeArn) handlers[name] = asLambda(options.finalize);
    if (state.Type === 'Wait' && options.waitOverrideMs !== undefined)
      waitTimeOverrides[name] = options.waitOverrideMs;
  }
  const overrides = { taskResourceLocalHandlers: handlers, waitTimeOverrides };

  const run = async (request: ExecutionRequest, machineName: string): Promise<ExecutionAnswer> => {
    const execution = machine.run(request as never, {
      overrides: overrides as never,
      context: {
        Execution: {
          Id: `${stateMachineArnPrefix}execution:${machineName}:${request.executionId}`,
          Name: request.executionId,
        },
        StateMachine: { Id: `${stateMachineArnPrefix}stateMachine:${machineName}`, Name: machineName },
      },
    });
    return (await execution.result) as unknown as ExecutionAnswer;
  };

  const running = new Map<string, Promise<void>>();
  const onAsyncError =
    options.onAsyncError ??
    ((error: unknown, request: ExecutionRequest) =>
      console.error(`Local execution ${request.executionId} failed`, error));

  return {
    startSync: (request) => run(request, 'executionSync'),

    startAsync(request) {
      // Like a Standard execution named by the task id: starting the same one again is a no-op.
      if (running.has(request.executionId)) return Promise.resolve();
      // The run begins after the caller's current turn, as a Standard execution starts after StartExecution answers.
      const done = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => run(request, 'executionAsync'))
        .then(
          () => undefined,
          (error) => {
            try {
              onAsyncError(error, request);
            } catch {
              // A failing reporter must not turn into an unhandled rejection.
            }
          },
        );
      running.set(request.executionId, done);
      done.finally(() => running.delete(request.executionId));
      return Promise.resolve();
    },

    async drain() {
      while (running.size > 0) await Promise.all(running.values());
    },

    get inFlight() {
      return running.size;
    },
  };
}

/**
 * Machines are built once per pair of function ARNs and shared (a StateMachine keeps no state between
 * runs). The definition is not validated here: asl-validator takes 0.3 to 0.6 s on its first use, a
 * large part of the local server's start-up budget, and the definition is static; the integration
 * tests validate it (`validateExecutionDefinition`).
 */
const machines = new Map<string, { definition: StateMachineDefinition; machine: StateMachine }>();
function parsedMachine(stepArn: string, finalizeArn: string) {
  const key = `${stepArn} ${finalizeArn}`;
  let parsed = machines.get(key);
  if (!parsed) {
    const definition = renderExecutionDefinition({
      StepFunctionArn: stepArn,
      FinalizeFunctionArn: finalizeArn,
    }) as unknown as StateMachineDefinition;
    parsed = {
      definition,
      machine: new StateMachine(definition, { validationOptions: { noValidate: true } }),
    };
    machines.set(key, parsed);
  }
  return parsed;
}

/** Validates the rendered definition as aws-local-stepfunctions would (throws on an invalid one). */
export function validateExecutionDefinition(functionArnPrefix = DEFAULT_FUNCTION_ARN_PREFIX): void {
  const definition = renderExecutionDefinition({
    StepFunctionArn: `${functionArnPrefix}executionStep`,
    FinalizeFunctionArn: `${functionArnPrefix}executionFinalize`,
  }) as unknown as StateMachineDefinition;
  new StateMachine(definition);
}

/** Binds a handler as Lambda would run it: errors surface as Lambda function errors do. */
function asLambda<T>(handler: (state: ExecutionState) => Promise<T>) {
  return async (input: unknown): Promise<never> => {
    try {
      return (await handler(input as ExecutionState)) as never;
    } catch (error) {
      throw lambdaFunctionError(error);
    }
  };
}

/** An error whose name is the Lambda `errorType` and whose message is the Cause text Step Functions shows. */
export function lambdaFunctionError(error: unknown): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const wrapped = new Error(
    JSON.stringify({
      errorType: original.name,
      errorMessage: original.message,
      trace: (original.stack ?? '').split('\n'),
    }),
    { cause: original },
  );
  wrapped.name = original.name;
  return wrapped;
}

/** aws-local-stepfunctions@3 needs `Promise.withResolvers`, which Node 20 lacks. Installed once, if missing. */
export function installPromiseWithResolvers(): void {
  const promise = Promise as unknown as { withResolvers?: unknown };
  if (typeof promise.withResolvers === 'function') return;
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
