/**
 * Work in flight: each started block, child workflow load, loop condition or resumed wait is work
 * in flight of its frame until it settles. Work cancelled meanwhile has its result dropped.
 */
import { BlockError } from '../blocks/types';
import { messageOf, type Step, type WorkInFlight } from './runtime';

export function track(
  step: Step,
  frame: WorkInFlight['frame'],
  id: string,
  kind: WorkInFlight['kind'],
): WorkInFlight {
  const inFlight: WorkInFlight = { frame, block: id, kind, startedAt: step.deps.now(), settled: false };
  frame.inFlight.add(inFlight);
  step.inFlight += 1;
  return inFlight;
}

/** False when the work was cancelled meanwhile: its result is then dropped. */
export function release(step: Step, inFlight: WorkInFlight): boolean {
  if (inFlight.settled) return false;
  inFlight.settled = true;
  inFlight.frame.inFlight.delete(inFlight);
  step.inFlight -= 1;
  return true;
}

export type Apply<T> = (step: Step, inFlight: WorkInFlight, value: T) => void;

/** Why work failed: its message, and the status the run ends with where the caller is at fault. */
export interface Failure {
  message: string;
  httpStatus?: number;
}

function failureOf(error: unknown): Failure {
  const message = messageOf(error);
  return error instanceof BlockError && error.httpStatus
    ? { message, httpStatus: error.httpStatus }
    : { message };
}

/** Applies the result of the work once it settles, unless it was cancelled meanwhile; then pumps on. */
export function whenSettled<T>(
  step: Step,
  inFlight: WorkInFlight,
  work: Promise<T>,
  onValue: Apply<T>,
  onError: Apply<Failure>,
): void {
  work.then(
    (value) => settle(step, inFlight, onValue, value),
    (error: unknown) => settle(step, inFlight, onError, failureOf(error)),
  );
}

function settle<T>(step: Step, inFlight: WorkInFlight, apply: Apply<T>, value: T): void {
  if (release(step, inFlight)) {
    try {
      apply(step, inFlight, value);
    } catch (error) {
      step.fatal = error;
    }
  }
  step.pump();
}
