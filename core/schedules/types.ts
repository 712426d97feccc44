/**
 * Workflow schedules: a workflow runs on a 5-field cron in a time zone, or every N minutes, with a
 * fixed input, as the user who put the schedule. Each fire is a message on the jobs queue (sent by
 * EventBridge Scheduler in AWS, by the in-process scheduler locally) that the jobs worker turns into
 * an asynchronous run with trigger `schedule`.
 */

export interface Schedule {
  workflowId: string;
  workspaceId: string;
  /** Exactly one of `cron` and `rateMinutes` is set. */
  cron?: string;
  rateMinutes?: number;
  /** IANA name, canonical as the platform spells it (`UTC` unless given). */
  timezone: string;
  /** The run input; checked against the deployed Start block at each fire. */
  input: Record<string, unknown>;
  enabled: boolean;
  /** The user who put the schedule: its runs act as them, and stop once they may no longer write. */
  userId: string;
  /**
   * The next fire the local schedule firer waits for, advanced by it after each fire; null when the
   * schedule is disabled or will never fire again. In AWS EventBridge keeps its own clock, so
   * answers compute the next fire from the time of asking instead of reading this.
   */
  nextRunAt: string | null;
  /** Nominal time of the last fire that reached the workflow while it was deployed. */
  lastRunAt?: string;
  /** Why that fire started no run (input that no longer fits the Start block, a lost permission). */
  lastError?: string;
  createdAt: string;
  updatedAt: string;
}

/** What one fire reports back to its schedule. */
export interface FireRecord {
  /** The fire's nominal time (ISO, milliseconds and `Z`). */
  scheduledTime: string;
  /** Why it started no run; absent when it started one. */
  error?: string;
}

/** Port: where schedules are kept (one per workflow). */
export interface ScheduleStore {
  /** Creates or replaces the workflow's schedule. */
  putSchedule(schedule: Schedule): Promise<void>;
  getSchedule(workflowId: string): Promise<Schedule | undefined>;
  /** Removing a schedule that is not there is no error. */
  deleteSchedule(workflowId: string): Promise<void>;
  /**
   * Enabled schedules that have a next fire, earliest first, with `nextRunAt` at or before `until`
   * (all of them when `until` is absent), at most `limit`.
   */
  listSchedulesByNextRun(options: { until?: Date; limit: number }): Promise<Schedule[]>;
  /**
   * Moves `nextRunAt` on, only if the schedule still has the `nextRunAt` and `updatedAt` it was
   * read with (so a fire never overwrites a schedule that was changed meanwhile): false when not.
   */
  advanceSchedule(
    workflowId: string,
    expected: Pick<Schedule, 'nextRunAt' | 'updatedAt'>,
    nextRunAt: string | null,
  ): Promise<boolean>;
  /**
   * Notes a fire on the schedule, unless a fire at the same or a later time was noted already (a
   * redelivered or late message) or the schedule is gone.
   */
  recordFire(workflowId: string, fire: FireRecord): Promise<void>;
}

/**
 * Port: what actually fires schedules (EventBridge Scheduler in AWS, the in-process scheduler
 * locally). It holds a workflow's schedule only while the workflow is deployed.
 */
export interface ScheduleRegistry {
  /** Creates or replaces the workflow's schedule; a disabled one is kept but does not fire. */
  apply(schedule: Schedule): Promise<void>;
  /** Removing one that is not there is no error. */
  remove(workflowId: string): Promise<void>;
}

/** The interface's schedule. */
export interface ScheduleView {
  workflowId: string;
  cron?: string;
  rateMinutes?: number;
  timezone: string;
  input: Record<string, unknown>;
  enabled: boolean;
  nextRunAt: string | null;
  lastRunAt?: string;
  lastError?: string;
  createdAt: string;
  updatedAt: string;
}
