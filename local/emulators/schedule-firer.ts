/**
 * The schedule firer, the local stand-in for EventBridge Scheduler: a timer loop in the service's
 * process that reads due schedules from the schedule store (one Query of its index, earliest
 * first) and sends each fire to the jobs queue as the same message EventBridge sends in AWS, so the
 * jobs worker handles both alike.
 *
 * - Send, then advance: a fire's message is sent before the schedule's `nextRunAt` moves on. A
 *   process that dies in between sends the same fire again at its next start, with the same
 *   nominal time, which the jobs worker turns into the same execution id: one run, never a lost
 *   fire. The advance is conditional on the schedule being as it was read, so a fire never
 *   overwrites a schedule that was put again meanwhile.
 * - Missed fires: after downtime, a schedule whose fires passed fires once, for the latest of
 *   them, and moves on to its next fire after now (EventBridge does not catch up either; one run
 *   tells the workflow it was due without flooding it).
 * - Deployment: the loop fires every enabled schedule; a fire of a workflow that is not deployed
 *   starts no run (the jobs worker checks), which is what EventBridge's absent schedule amounts to.
 *   The registry it hands out only wakes the loop, so a changed schedule is seen at once.
 *
 * Time comes from `now` and `timers`, so tests drive it with fake timers.
 */
import { DynamoScheduleStore } from '../../adapters/dynamodb/schedule-store';
import { SqsJobQueue } from '../../adapters/sqs/job-queue';
import type { JobMessage, JobQueue } from '../../core/jobs/types';
import { latestFireAtOrBefore, nextFireAfter, timingOf } from '../../core/schedules/cron';
import type { ScheduleRegistry, ScheduleStore } from '../../core/schedules/types';
import { refuseOverLimit, schedulerInputLimitInBytes } from './aws-limits';

export interface ScheduleFirerTimers {
  set(callback: () => void, delayInMs: number): unknown;
  clear(handle: unknown): void;
}

export interface ScheduleFirerOptions {
  /** Default: the DynamoDB store of the local emulators (read from the environment). */
  store?: Pick<ScheduleStore, 'getSchedule' | 'listSchedulesByNextRun' | 'advanceSchedule'>;
  /** Default: the jobs queue of the local emulators, through the SQS SDK client. */
  queue?: JobQueue;
  now?: () => Date;
  timers?: ScheduleFirerTimers;
  /** Longest sleep between looks at the store, so schedules written behind its back are seen. */
  maxSleepInMs?: number;
  /** Wait after a tick that could not fire what was due (queue or store failing). */
  retryDelayInMs?: number;
  /** Schedules fired per look at the store; a full batch is followed by another look at once. */
  batchSize?: number;
  onError?(error: unknown, workflowId?: string): void;
}

export interface ScheduleFirer {
  /** What the schedule use cases call locally: it wakes the loop; firing needs nothing else. */
  registry: ScheduleRegistry;
  /** Fires what is due now (after a tick under way, if any). */
  tick(): Promise<void>;
  /** No tick starts after this; resolves once the tick under way, if any, has finished. */
  stop(): Promise<void>;
}

const realTimers: ScheduleFirerTimers = {
  // Looked up at each call, so fake timers installed after start are the ones used.
  set: (callback, delayInMs) => {
    const handle = setTimeout(callback, delayInMs);
    // The loop alone never keeps a process alive; the service it belongs to does.
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export function startScheduleFirer(options: ScheduleFirerOptions = {}): ScheduleFirer {
  const store = options.store ?? DynamoScheduleStore.fromEnv();
  const queue = options.queue ?? SqsJobQueue.fromEnv();
  const now = options.now ?? (() => new Date());
  const timers = options.timers ?? realTimers;
  const maxSleepInMs = options.maxSleepInMs ?? 60_000;
  const retryDelayInMs = options.retryDelayInMs ?? 1_000;
  const batchSize = options.batchSize ?? 25;
  const onError =
    options.onError ??
    ((error: unknown, workflowId?: string) =>
      console.error(`Local scheduler${workflowId ? ` (workflow ${workflowId})` : ''}`, error));

  let stopped = false;
  let timer: unknown;
  let running: Promise<void> | undefined;
  let again = false;

  const arm = (delayInMs: number) => {
    if (stopped) return;
    if (timer !== undefined) timers.clear(timer);
    timer = timers.set(
      () => {
        timer = undefined;
        void run();
      },
      Math.max(0, delayInMs),
    );
  };

  /** Fires one due schedule: true when it fired. The index may lag behind, so the item is read again. */
  const fire = async (workflowId: string, at: Date): Promise<boolean> => {
    const schedule = await store.getSchedule(workflowId);
    if (!schedule?.enabled || schedule.nextRunAt === null) return false;
    const nominal = Date.parse(schedule.nextRunAt);
    if (nominal > at.getTime()) return false;
    const timing = timingOf(schedule);
    const latest = latestFireAtOrBefore(timing, at)?.getTime() ?? nominal;
    const fireAt = new Date(Math.max(nominal, latest));
    const message: JobMessage = { kind: 'schedule', workflowId, scheduledTime: fireAt.toISOString() };
    // What EventBridge Scheduler would carry as the target's input: the fire only, never the schedule's input.
    refuseOverLimit(
      'The schedule target input',
      message,
      schedulerInputLimitInBytes,
      "EventBridge Scheduler's limit on a target's input",
    );
    await queue.send(message);
    const next = nextFireAfter(timing, fireAt);
    await store.advanceSchedule(workflowId, schedule, next?.toISOString() ?? null);
    return true;
  };

  /** One look at the store: fires what is due, and answers how long to sleep before the next look. */
  const fireDue = async (): Promise<number> => {
    const at = now();
    const due = await store.listSchedulesByNextRun({ until: at, limit: batchSize });
    let fired = 0;
    for (const candidate of due) {
      if (stopped) return 0;
      try {
        if (await fire(candidate.workflowId, at)) fired += 1;
      } catch (error) {
        onError(error, candidate.workflowId);
      }
    }
    if (due.length === batchSize && fired > 0) return 0;
    const [earliest] = await store.listSchedulesByNextRun({ limit: 1 });
    if (!earliest?.nextRunAt) return maxSleepInMs;
    const nextAt = Date.parse(earliest.nextRunAt);
    // Due before this look began and still there: a failure, or an index that has not caught up.
    if (nextAt <= at.getTime()) return retryDelayInMs;
    return Math.min(Math.max(0, nextAt - now().getTime()), maxSleepInMs);
  };

  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let delayInMs = retryDelayInMs;
      try {
        delayInMs = await fireDue();
      } catch (error) {
        onError(error);
      }
      running = undefined;
      if (again) {
        again = false;
        arm(0);
      } else {
        arm(delayInMs);
      }
    })();
    return running;
  };

  const wake = () => {
    if (stopped) return;
    if (running) again = true;
    else arm(0);
  };

  arm(0);

  return {
    registry: {
      apply: async () => wake(),
      // A fire of a workflow that is not deployed starts no run; the stored schedule goes with DELETE.
      remove: async () => undefined,
    },
    async tick() {
      if (running) await running;
      await run();
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) timers.clear(timer);
      timer = undefined;
      await running;
    },
  };
}
