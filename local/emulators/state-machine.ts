/**
 * An interpreter of the Amazon States Language subset the execution definition uses (Task with
 * Retry, Catch, ResultPath and TimeoutSeconds; Choice on StringEquals; Wait with Seconds or
 * SecondsPath), built so that an execution can be written down between any two states and picked
 * up again by another process: the local stand-in for a Standard machine's durability.
 *
 * A definition that uses anything else is refused when the machine is built, so the deployed
 * definition cannot drift past what runs locally without a test failing.
 *
 * Each state's input and output is held to Step Functions' payload limit (262,144 bytes of UTF-8
 * JSON): past it the execution fails with States.DataLimitExceeded, which no Catch catches.
 */
import { bytesText, jsonBytes, stepFunctionsPayloadLimitInBytes } from './aws-limits';

export interface StateError {
  Error: string;
  Cause: string;
}

/** Where an execution is: the state about to run and its input, or the end. */
export type Position =
  | { state: string; input: unknown; waitUntilInMs?: number }
  | { end: true; output: unknown }
  | { failed: StateError };

export interface TaskFailure extends Error {
  /** The `Error` name Step Functions would match Retry and Catch on. */
  stateError: StateError;
}

export interface MachineHooks {
  /** Runs a Task state's resource. A thrown error with `stateError` keeps that name and cause. */
  invoke(resource: string, input: unknown): Promise<unknown>;
  /** Sleeps until the time, or until the execution is stopped. */
  sleepUntil(timeInMs: number): Promise<void>;
  now(): number;
  /** Called with each position reached (a Wait's deadline included), so it can be kept. */
  onPosition?(position: Position): Promise<void> | void;
  /** True once the execution has been stopped: no further state starts. */
  stopped?(): boolean;
}

interface RetryRule {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
}
interface CatchRule {
  ErrorEquals: string[];
  ResultPath?: string;
  Next: string;
}
interface State {
  Type: string;
  Resource?: string;
  ResultPath?: string;
  TimeoutSeconds?: number;
  Retry?: RetryRule[];
  Catch?: CatchRule[];
  Choices?: { Variable: string; StringEquals: string; Next: string }[];
  Default?: string;
  Seconds?: number;
  SecondsPath?: string;
  Next?: string;
  End?: boolean;
}
export interface Definition {
  StartAt: string;
  States: Record<string, State>;
}

const allowedFields: Record<string, string[]> = {
  Task: ['Type', 'Resource', 'ResultPath', 'TimeoutSeconds', 'Retry', 'Catch', 'Next', 'End', 'Comment'],
  Choice: ['Type', 'Choices', 'Default', 'Comment'],
  Wait: ['Type', 'Seconds', 'SecondsPath', 'Next', 'Comment'],
};

/** Throws naming the first state or field this interpreter does not run. */
export function checkDefinition(definition: Definition): void {
  if (!definition.States[definition.StartAt]) throw new Error(`StartAt ${definition.StartAt} is not a state`);
  for (const [name, state] of Object.entries(definition.States)) {
    const allowed = allowedFields[state.Type];
    if (!allowed) throw new Error(`State ${name}: type ${state.Type} is not supported locally`);
    for (const field of Object.keys(state)) {
      if (!allowed.includes(field)) throw new Error(`State ${name}: field ${field} is not supported locally`);
    }
    for (const choice of state.Choices ?? []) {
      if (Object.keys(choice).sort().join() !== 'Next,StringEquals,Variable') {
        throw new Error(`State ${name}: only StringEquals choices on a Variable are supported locally`);
      }
    }
    for (const path of [
      state.ResultPath,
      state.SecondsPath,
      ...(state.Catch ?? []).map((c) => c.ResultPath),
    ]) {
      if (path !== undefined && !/^\$(\.\w+)*$/.test(path)) {
        throw new Error(`State ${name}: path ${path} is not supported locally (only $.a.b paths)`);
      }
    }
    const targets = [state.Next, state.Default, ...(state.Choices ?? []).map((c) => c.Next)];
    for (const target of [...targets, ...(state.Catch ?? []).map((c) => c.Next)]) {
      if (target !== undefined && !definition.States[target]) {
        throw new Error(`State ${name}: next state ${target} does not exist`);
      }
    }
  }
}

/**
 * Runs from `position` until the execution ends, or until it is stopped: then the position it had
 * reached is returned. Every position reached is handed to `onPosition` before the next state runs.
 */
export async function runFrom(
  definition: Definition,
  position: Position,
  hooks: MachineHooks,
): Promise<Position> {
  let current = position;
  while ('state' in current) {
    if (hooks.stopped?.()) return current;
    current = overPayloadLimit(await runState(definition, current, hooks));
    await hooks.onPosition?.(current);
  }
  return current;
}

/** The position, or the execution's failure when the payload it carries is over the limit. */
function overPayloadLimit(position: Position): Position {
  if ('failed' in position) return position;
  const payload = 'state' in position ? position.input : position.output;
  const bytes = jsonBytes(payload);
  if (bytes <= stepFunctionsPayloadLimitInBytes) return position;
  const where = 'state' in position ? `The input of state ${position.state}` : 'The execution output';
  return {
    failed: {
      Error: 'States.DataLimitExceeded',
      Cause: `${where} is ${bytesText(bytes)} bytes, over Step Functions' payload limit of ${bytesText(stepFunctionsPayloadLimitInBytes)} bytes (256 KB of UTF-8 JSON)`,
    },
  };
}

async function runState(
  definition: Definition,
  position: Extract<Position, { state: string }>,
  hooks: MachineHooks,
): Promise<Position> {
  const state = definition.States[position.state];
  const { input } = position;
  const next = (output: unknown, name = state.Next): Position =>
    name === undefined ? { end: true, output } : { state: name, input: output };

  if (state.Type === 'Choice') {
    const match = state.Choices?.find((choice) => readPath(input, choice.Variable) === choice.StringEquals);
    const target = match?.Next ?? state.Default;
    if (!target)
      return { failed: { Error: 'States.NoChoiceMatched', Cause: `No choice of ${position.state} matched` } };
    return { state: target, input };
  }

  if (state.Type === 'Wait') {
    if (position.waitUntilInMs === undefined) {
      const seconds = state.SecondsPath === undefined ? state.Seconds : readPath(input, state.SecondsPath);
      if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0) {
        return {
          failed: {
            Error: 'States.Runtime',
            Cause: `The Wait state ${position.state} needs a whole number of seconds; got ${JSON.stringify(seconds)}`,
          },
        };
      }
      // Written down before the sleep, so a restart sleeps only what is left.
      return { ...position, waitUntilInMs: hooks.now() + seconds * 1000 };
    }
    await hooks.sleepUntil(position.waitUntilInMs);
    if (hooks.stopped?.()) return position;
    return next(input);
  }

  // Task
  try {
    const result = await invokeWithRetry(state, input, hooks);
    return next(withResult(input, state.ResultPath, result));
  } catch (error) {
    const stateError = stateErrorOf(error);
    const handler = state.Catch?.find((rule) => matches(rule.ErrorEquals, stateError.Error));
    if (!handler) return { failed: stateError };
    return { state: handler.Next, input: withResult(input, handler.ResultPath, stateError) };
  }
}

async function invokeWithRetry(state: State, input: unknown, hooks: MachineHooks): Promise<unknown> {
  const attempts = new Map<RetryRule, number>();
  for (;;) {
    try {
      return await withTimeout(hooks.invoke(state.Resource as string, input), state.TimeoutSeconds);
    } catch (error) {
      const { Error: name } = stateErrorOf(error);
      const rule = state.Retry?.find((candidate) => matches(candidate.ErrorEquals, name));
      const made = rule ? (attempts.get(rule) ?? 0) : 0;
      if (!rule || made >= (rule.MaxAttempts ?? 3) || hooks.stopped?.()) throw error;
      attempts.set(rule, made + 1);
      const delayInMs = (rule.IntervalSeconds ?? 1) * 1000 * (rule.BackoffRate ?? 2) ** made;
      await hooks.sleepUntil(hooks.now() + delayInMs);
    }
  }
}

async function withTimeout<T>(work: Promise<T>, timeoutInSeconds: number | undefined): Promise<T> {
  if (timeoutInSeconds === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(stateFailure('States.Timeout', 'Task timed out')),
      timeoutInSeconds * 1000,
    );
    timer.unref?.();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function stateFailure(name: string, cause: string): TaskFailure {
  const error = new Error(cause) as TaskFailure;
  error.name = name;
  error.stateError = { Error: name, Cause: cause };
  return error;
}

function stateErrorOf(error: unknown): StateError {
  const withState = error as Partial<TaskFailure>;
  if (withState?.stateError) return withState.stateError;
  const plain = error instanceof Error ? error : new Error(String(error));
  return { Error: plain.name, Cause: plain.message };
}

/** States.ALL catches neither States.Runtime nor the terminal States.DataLimitExceeded. */
function matches(names: string[], error: string): boolean {
  const terminal = error === 'States.Runtime' || error === 'States.DataLimitExceeded';
  return names.includes(error) || (names.includes('States.ALL') && !terminal);
}

function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** ResultPath: absent or `$` replaces the input; `$.a.b` sets that member of a copy. */
function withResult(input: unknown, path: string | undefined, result: unknown): unknown {
  if (path === undefined || path === '$') return result;
  const keys = path.split('.').slice(1);
  const root: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  let target = root;
  for (const key of keys.slice(0, -1)) {
    const child = target[key];
    target[key] = child !== null && typeof child === 'object' ? { ...(child as object) } : {};
    target = target[key] as Record<string, unknown>;
  }
  target[keys[keys.length - 1]] = result;
  return root;
}
