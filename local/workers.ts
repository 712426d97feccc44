/**
 * The workers of the route table's catalog, started locally as AWS starts them: state machine
 * Tasks are bound to the in-process state machine, queue workers get a poller on their queue (or
 * its dead-letter queue), `every` workers a timer, and `executionEnded` workers hear of async runs that ended outside their
 * Finalize. Each is called through its module's `handler`, as Lambda calls it.
 */
import type { Context } from 'aws-lambda';
import { taskWorkers } from '../catalog/execution-definition';
import { type WorkerDefinition, workers } from '../catalog/routes';
import { sqsClient } from '../adapters/aws/sqs-client';
import type { ExecutionRequest } from '../core/runs/types';
import { localLambdaContext, startInvocationMetering } from './lambda-context';
import { moduleUrlOf } from './modules';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './emulators/constants';
import { type QueuePoller, startQueuePoller } from './emulators/queue-poller';
import { createLocalExecutionStarter, type LocalExecutionStarter } from './emulators/step-functions';

type Handler = (event: never, context: Context) => Promise<unknown>;

export interface LocalWorkersOptions {
  root: string;
  /** URL of every local queue by name, dead-letter queues (`<name>-dlq`) included. */
  queueUrls: Record<string, string>;
  /** Where async executions of the state machine are written down (survives restarts). */
  journalDir: string;
  waitOverrideMs?: number;
  /** A worker's handler from elsewhere than its module (the bundle mode's Lambda artifacts, local/bundles). */
  handlerOf?: (worker: WorkerDefinition) => Handler;
}

export interface LocalWorkers {
  starter: LocalExecutionStarter;
  /** Starts the queue pollers and resumes the executions a previous process left running. */
  start(): Promise<void>;
  /** Pollers finish their batches; executions stop between states, written down for the next start. */
  stop(): Promise<void>;
}

/**
 * How long a busy queue's poller lets messages gather (./emulators/queue-poller.ts): every batch costs a
 * receive, a delete and its handler's reads, so fuller batches leave more of the service to runs.
 */
const queueBatchingWindowInMs = 50;

export async function loadLocalWorkers(options: LocalWorkersOptions): Promise<LocalWorkers> {
  const handlers = new Map<string, Handler>();
  await Promise.all(
    Object.values(workers).map(async (worker: WorkerDefinition) => {
      if (options.handlerOf) return void handlers.set(worker.id, options.handlerOf(worker));
      const module = (await import(moduleUrlOf(options.root, worker.entry))) as {
        handler: Handler;
      };
      handlers.set(worker.id, module.handler);
    }),
  );
  const invoke = async (worker: WorkerDefinition, event: unknown) => {
    const invocation = startInvocationMetering(worker.id, worker.memoryInMb);
    try {
      return await (handlers.get(worker.id) as Handler)(
        event as never,
        localLambdaContext(worker.id, worker.timeoutInSeconds, worker.memoryInMb),
      );
    } finally {
      invocation?.end();
    }
  };

  // What EventBridge delivers in AWS when an async execution ends outside its Catch.
  const executionEnded = Object.values(workers as Record<string, WorkerDefinition>).filter(
    (worker) => worker.trigger.kind === 'executionEnded',
  );
  const onAsyncError = (error: unknown, request: ExecutionRequest) => {
    console.error(`Run ${request.executionId} ended outside its Finalize`, error);
    const detail = { name: request.executionId, status: 'FAILED' };
    for (const worker of executionEnded) {
      invoke(worker, {
        source: 'aws.states',
        'detail-type': 'Step Functions Execution Status Change',
        detail,
      }).catch((failure) => console.error(`${worker.id} failed for run ${request.executionId}`, failure));
    }
  };

  const starter = createLocalExecutionStarter({
    step: (state) => invoke(workers[taskWorkers.StepFunctionArn], state) as never,
    finalize: (state) => invoke(workers[taskWorkers.FinalizeFunctionArn], state) as never,
    journalDir: options.journalDir,
    waitOverrideMs: options.waitOverrideMs,
    onAsyncError,
  });

  let pollers: QueuePoller[] = [];
  let timers: NodeJS.Timeout[] = [];
  return {
    starter,
    async start() {
      // What an EventBridge schedule does in AWS: call the worker on its clock.
      timers = Object.values(workers as Record<string, WorkerDefinition>).flatMap((worker) => {
        const { trigger } = worker;
        if (trigger.kind !== 'every') return [];
        const timer = setInterval(() => {
          invoke(worker, { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} }).catch(
            (error) => console.error(`${worker.id} failed`, error),
          );
        }, trigger.minutes * 60_000);
        timer.unref();
        return [timer];
      });
      pollers = Object.values(workers as Record<string, WorkerDefinition>).flatMap((worker) => {
        if (worker.trigger.kind !== 'queue') return [];
        const name = worker.trigger.deadLetter ? `${worker.trigger.queue}-dlq` : worker.trigger.queue;
        return [
          startQueuePoller({
            client: sqsClient(),
            queueUrl: options.queueUrls[name],
            queueArn: `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${name}`,
            batchSize: worker.trigger.batchSize,
            batchingWindowInMs: queueBatchingWindowInMs,
            handler: (event) => invoke(worker, event) as never,
          }),
        ];
      });
      await starter.resume();
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(pollers.map((poller) => poller.stop()));
      await starter.close();
    },
  };
}
