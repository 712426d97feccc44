/**
 * The sync caller's deadline. A sync run is held to the sync budget between blocks (executeStep),
 * but a block that is running when the budget ends (a slow model call, a long function) is not
 * interrupted; the caller is answered 408 at the deadline all the same, and the run goes on to its
 * end and its log entry without anyone waiting.
 */
import { TimeoutError } from '../errors';

/** Time after the budget for Finalize to write the log entry and the answer to travel back. */
export const syncAnswerGraceInMs = 1_500;

export async function withinSyncDeadline<T>(
  answer: Promise<T>,
  startedAt: string,
  budgetInMs: number,
  now: () => number = Date.now,
): Promise<T> {
  const leftInMs = Date.parse(startedAt) + budgetInMs + syncAnswerGraceInMs - now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new TimeoutError(
            `The run did not finish within the ${Math.round(budgetInMs / 1000)} s a synchronous execution may take; run it asynchronously (header X-Execution-Mode: async)`,
          ),
        ),
      Math.max(0, leftInMs),
    );
  });
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
    // The abandoned answer may still fail later; that is the run's own business, not the caller's.
    answer.catch(() => undefined);
  }
}
