/**
 * Work in flight: each started block, child workflow load, loop condition or resumed wait is a task
 * of its frame until it settles. A task cancelled meanwhile has its result dropped.
 */
import { messageOf, type Step, type Task } from './runtime';

export function track(step: Step, frame: Task['frame'], id: string, kind: Task['kind']): Task {
  const task: Task = { frame, block: id, kind, startedAt: step.deps.now(), settled: false };
  frame.tasks.add(task);
  step.inFlight += 1;
  return task;
}

/** False when the task was cancelled meanwhile: its result is then dropped. */
export function release(step: Step, task: Task): boolean {
  if (task.settled) return false;
  task.settled = true;
  task.frame.tasks.delete(task);
  step.inFlight -= 1;
  return true;
}

export type Apply<T> = (step: Step, task: Task, value: T) => void;

/** Applies the task's result once it settles, unless it was cancelled meanwhile; then pumps on. */
export function whenSettled<T>(
  step: Step,
  task: Task,
  work: Promise<T>,
  onValue: Apply<T>,
  onError: Apply<string>,
): void {
  work.then(
    (value) => settle(step, task, onValue, value),
    (error: unknown) => settle(step, task, onError, messageOf(error)),
  );
}

function settle<T>(step: Step, task: Task, apply: Apply<T>, value: T): void {
  if (release(step, task)) {
    try {
      apply(step, task, value);
    } catch (error) {
      step.fatal = error;
    }
  }
  step.pump();
}
