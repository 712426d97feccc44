/**
 * What a run carries through the state machine by reference: Step Functions caps an execution's
 * input and every state's payload at 262,144 bytes (256 KB, UTF-8), so a large start input goes to
 * the checkpoint store before the run starts (the request keeps `inputRef`), and a large answer of
 * a sync run goes there before Finalize hands it back (the machine's output is `{answerRef}`). The
 * same store, and the same blob offloading, as a large result of Step (`resultRef`).
 */
import type { CheckpointStore } from './log';
import type { ExecutionAnswer, ExecutionRequest, ExecutionStarter } from './types';

/**
 * Inputs above this travel by reference. Well below the 256 KB payload limit: the state that
 * carries the input also carries the step's result, inline up to `inlineResultLimitInBytes`.
 */
export const inlineInputLimitInBytes = 32 * 1024;

/** Answers above this travel by reference: the Express machine's output is capped at 256 KB too. */
export const inlineAnswerLimitInBytes = 200 * 1024;

const inputKey = (executionId: string) => `${executionId}#input`;
const answerKey = (executionId: string) => `${executionId}#answer`;

/** What Finalize hands the state machine: the answer, or where a large one was put. */
export type FinalizeOutput = ExecutionAnswer | { answerRef: string };

/** Starts runs on the state machines as they are (StartSyncExecution's output is Finalize's). */
export interface StateMachineStarter extends Omit<ExecutionStarter, 'startSync'> {
  startSync(request: ExecutionRequest): Promise<FinalizeOutput | ExecutionAnswer>;
}

/** The request as it starts the machine: its input moved to the store when it is large. */
export async function withInputByReference(
  checkpoints: Pick<CheckpointStore, 'saveJson'>,
  request: ExecutionRequest,
): Promise<ExecutionRequest> {
  if (request.inputRef !== undefined) return request;
  const json = JSON.stringify(request.input);
  if (Buffer.byteLength(json) <= inlineInputLimitInBytes) return request;
  const inputRef = inputKey(request.executionId);
  await checkpoints.saveJson(inputRef, json);
  return { ...request, input: {}, inputRef };
}

/**
 * The run's input, read back from the store when it travelled by reference. Missing, it is an
 * error, unless the caller says what stands in for it.
 */
export async function inputOf(
  checkpoints: Pick<CheckpointStore, 'load'>,
  request: Pick<ExecutionRequest, 'executionId' | 'input' | 'inputRef'>,
  options: { whenMissing?: Record<string, unknown> } = {},
): Promise<Record<string, unknown>> {
  if (request.inputRef === undefined) return request.input;
  const stored = await checkpoints.load(request.inputRef);
  if (stored !== undefined) return stored as Record<string, unknown>;
  if (options.whenMissing) return options.whenMissing;
  throw new Error(`Input of execution ${request.executionId} is missing`);
}

/**
 * What Finalize returns to the machine. A sync answer over the limit is put in the store for the
 * starter to read; an async run's answer is read by nobody (its log entry and job say it all), so
 * a large one is handed back without its output and trace spans.
 */
export async function answerForMachine(
  checkpoints: Pick<CheckpointStore, 'saveJson'>,
  request: Pick<ExecutionRequest, 'executionId' | 'mode'>,
  answer: ExecutionAnswer,
): Promise<FinalizeOutput> {
  const json = JSON.stringify(answer);
  if (Buffer.byteLength(json) <= inlineAnswerLimitInBytes) return answer;
  if (request.mode === 'async') {
    const { output: _output, ...body } = answer.body;
    return { ...answer, body: { ...body, traceSpans: [] } };
  }
  const answerRef = answerKey(request.executionId);
  await checkpoints.saveJson(answerRef, json);
  return { answerRef };
}

/**
 * The starter the routes and workers use: inputs go by reference on the way in, answers are read
 * back (and removed) on the way out, whichever machine runs them.
 */
export function startingByReference(
  machine: StateMachineStarter,
  checkpoints: CheckpointStore,
): ExecutionStarter {
  return {
    async startSync(request) {
      const output = await machine.startSync(await withInputByReference(checkpoints, request));
      if (!('answerRef' in output)) return output;
      const answer = await checkpoints.load(output.answerRef);
      if (answer === undefined) throw new Error(`Answer of execution ${request.executionId} is missing`);
      await checkpoints.delete(output.answerRef);
      return answer as ExecutionAnswer;
    },
    async startAsync(request) {
      await machine.startAsync(await withInputByReference(checkpoints, request));
    },
    stopAsync: (executionId, reason) => machine.stopAsync(executionId, reason),
  };
}
