import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobMessage } from '../../../core/jobs/types';
import { nextFireAfter, timingOf } from '../../../core/schedules/cron';
import { fireExecutionId } from '../../../core/schedules/service';
import type { Schedule } from '../../../core/schedules/types';
import { type ScheduleFirer, startScheduleFirer } from '../../../local/emulators/schedule-firer';
import { MemoryScheduleStore } from './fakes';

/** Notes each message with the (fake) time it was sent. */
class TimedQueue {
  readonly sent: Array<{ message: JobMessage; sentAt: string }> = [];
  async send(message: JobMessage) {
    this.sent.push({ message, sentAt: new Date().toISOString() });
  }
  get times(): string[] {
    return this.sent.map(({ message }) => (message.kind === 'schedule' ? message.scheduledTime : ''));
  }
}

async function putSchedule(store: MemoryScheduleStore, fields: Partial<Schedule> & { workflowId: string }) {
  const now = new Date();
  const schedule: Schedule = {
    workspaceId: 'ws_1',
    timezone: 'UTC',
    input: {},
    enabled: true,
    userId: 'usr_1',
    nextRunAt: null,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    ...fields,
  };
  schedule.nextRunAt = schedule.enabled
    ? (nextFireAfter(timingOf(schedule), now)?.toISOString() ?? null)
    : null;
  await store.putSchedule(schedule);
  return schedule;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('startScheduleFirer', () => {
  let running: ScheduleFirer[] = [];
  const start = (options: Parameters<typeof startScheduleFirer>[0]) => {
    const scheduler = startScheduleFirer({ onError: () => undefined, ...options });
    running.push(scheduler);
    return scheduler;
  };

  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(async () => {
    await Promise.all(running.map((scheduler) => scheduler.stop()));
    running = [];
    vi.useRealTimers();
  });

  it('fires 02:30 in Berlin once on the spring-forward night, at 03:00 local, and at 02:30 after it', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-03-29T12:00:00Z'));
    const store = new MemoryScheduleStore();
    const queue = new TimedQueue();
    await putSchedule(store, { workflowId: 'wf_1', cron: '30 2 * * *', timezone: 'Europe/Berlin' });

    // Act
    start({ store, queue });
    await vi.advanceTimersByTimeAsync(3 * DAY);

    // Assess
    expect(queue.sent).toEqual([
      {
        message: { kind: 'schedule', workflowId: 'wf_1', scheduledTime: '2025-03-30T01:00:00.000Z' },
        sentAt: '2025-03-30T01:00:00.000Z',
      },
      {
        message: { kind: 'schedule', workflowId: 'wf_1', scheduledTime: '2025-03-31T00:30:00.000Z' },
        sentAt: '2025-03-31T00:30:00.000Z',
      },
      {
        message: { kind: 'schedule', workflowId: 'wf_1', scheduledTime: '2025-04-01T00:30:00.000Z' },
        sentAt: '2025-04-01T00:30:00.000Z',
      },
    ]);
  });

  it('fires a time that occurs twice on the fall-back night once, at its first occurrence', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-10-25T12:00:00Z'));
    const store = new MemoryScheduleStore();
    const queue = new TimedQueue();
    await putSchedule(store, { workflowId: 'wf_berlin', cron: '30 2 * * *', timezone: 'Europe/Berlin' });
    await putSchedule(store, { workflowId: 'wf_york', cron: '30 1 * * *', timezone: 'America/New_York' });

    // Act
    start({ store, queue });
    await vi.advanceTimersByTimeAsync(9 * DAY);

    // Assess
    const fires = (workflowId: string) =>
      queue.sent
        .filter(({ message }) => message.kind === 'schedule' && message.workflowId === workflowId)
        .map(({ sentAt }) => sentAt);
    expect(fires('wf_berlin').slice(0, 2)).toEqual(['2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z']);
    expect(fires('wf_york').slice(0, 3)).toEqual([
      '2025-10-26T05:30:00.000Z',
      '2025-10-27T05:30:00.000Z',
      '2025-10-28T05:30:00.000Z',
    ]);
    expect(fires('wf_york')).toContain('2025-11-02T05:30:00.000Z');
    expect(fires('wf_york')).not.toContain('2025-11-02T06:30:00.000Z');
    expect(fires('wf_york')).toContain('2025-11-03T06:30:00.000Z');
  });

  it('sends a fire that was sent but not yet noted again after a restart, with the same time and so the same run', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-06-01T09:59:00Z'));
    const store = new MemoryScheduleStore();
    const queue = new TimedQueue();
    await putSchedule(store, { workflowId: 'wf_1', cron: '0 * * * *' });
    const dying = Object.create(store) as MemoryScheduleStore;
    dying.advanceSchedule = async () => {
      throw new Error('The process died before the schedule moved on');
    };
    const first = start({ store: dying, queue });
    await vi.advanceTimersByTimeAsync(60_000);
    await first.stop();

    // Act
    start({ store, queue });
    await vi.advanceTimersByTimeAsync(HOUR);

    // Assess
    expect(queue.times).toEqual([
      '2025-06-01T10:00:00.000Z',
      '2025-06-01T10:00:00.000Z',
      '2025-06-01T11:00:00.000Z',
    ]);
    const ids = queue.times.map((time) => fireExecutionId('wf_1', time));
    expect(new Set(ids).size).toBe(2);
  });

  it('does not fire again after a clean restart', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-06-01T09:59:00Z'));
    const store = new MemoryScheduleStore();
    const queue = new TimedQueue();
    await putSchedule(store, { workflowId: 'wf_1', cron: '0 * * * *' });
    const first = start({ store, queue });
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    await first.stop();

    // Act
    start({ store, queue });
    await vi.advanceTimersByTimeAsync(HOUR);

    // Assess
    expect(queue.times).toEqual(['2025-06-01T10:00:00.000Z', '2025-06-01T11:00:00.000Z']);
  });

  it('fires the fires missed while it was stopped once, for the latest, and goes on from there', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-06-01T09:59:00Z'));
    const store = new MemoryScheduleStore();
    const queue = new TimedQueue();
    await putSchedule(store, { workflowId: 'wf_1', cron: '0 * * * *' });
    vi.setSystemTime(new Date('2025-06-01T15:20:00Z'));

    // Act
    start({ store, queue });
    await vi.advanceTimersByTimeAsync(HOUR);

    // Assess
    expect(
      queue.sent.map(({ message, sentAt }) => [message.kind === 'schedule' && message.scheduledTime, sentAt]),
    ).toEqual([
      ['2025-06-01T15:00:00.000Z', '2025-06-01T15:20:00.000Z'],
      ['2025-06-01T16:00:00.000Z', '2025-06-01T16:00:00.000Z'],
    ]);
  });

  it('fires a rate schedule every N minutes from when it was put', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-06-01T10:00:20Z'));
    const store = new MemoryScheduleStore();
    const queue = new TimedQueue();
    await putSchedule(store, { workflowId: 'wf_1', rateMinutes: 7 });

    // Act
    start({ store, queue });
    await vi.advanceTimersByTimeAsync(22 * 60_000);

    // Assess
    expect(queue.times).toEqual([
      '2025-06-01T10:07:00.000Z',
      '2025-06-01T10:14:00.000Z',
      '2025-06-01T10:21:00.000Z',
    ]);
  });

  it('never fires a disabled schedule', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-06-01T10:00:00Z'));
    const store = new MemoryScheduleStore();
    const queue = new TimedQueue();
    await putSchedule(store, { workflowId: 'wf_1', cron: '* * * * *', enabled: false });

    // Act
    start({ store, queue });
    await vi.advanceTimersByTimeAsync(10 * 60_000);

    // Assess
    expect(queue.sent).toEqual([]);
  });

  it('wakes at once when the registry is told of a schedule that fires before its next look', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-06-01T10:00:00Z'));
    const store = new MemoryScheduleStore();
    const queue = new TimedQueue();
    const scheduler = start({ store, queue, maxSleepInMs: DAY });
    await vi.advanceTimersByTimeAsync(1_000);
    const schedule = await putSchedule(store, { workflowId: 'wf_1', cron: '2 10 * * *' });

    // Act
    await scheduler.registry.apply(schedule);
    await vi.advanceTimersByTimeAsync(5 * 60_000);

    // Assess
    expect(queue.sent.map(({ sentAt }) => sentAt)).toEqual(['2025-06-01T10:02:00.000Z']);
  });

  it('finishes the fire under way before stop resolves, and fires nothing after it', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-06-01T09:59:00Z'));
    const store = new MemoryScheduleStore();
    await putSchedule(store, { workflowId: 'wf_1', cron: '* * * * *' });
    let release: () => void = () => undefined;
    const sent: JobMessage[] = [];
    const queue = {
      send: (message: JobMessage) =>
        new Promise<void>((resolve) => {
          sent.push(message);
          release = resolve;
        }),
    };
    const scheduler = start({ store, queue });
    await vi.advanceTimersByTimeAsync(60_000);
    let stopped = false;

    // Act
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    const stoppedBeforeRelease = stopped;
    release();
    await stopping;
    await vi.advanceTimersByTimeAsync(5 * 60_000);

    // Assess
    expect(stoppedBeforeRelease).toBe(false);
    expect(sent).toHaveLength(1);
    expect((await store.getSchedule('wf_1'))?.nextRunAt).toBe('2025-06-01T10:01:00.000Z');
  });

  it('keeps firing other schedules when one fails, and retries the failed one', async () => {
    // Prepare
    vi.setSystemTime(new Date('2025-06-01T09:59:30Z'));
    const store = new MemoryScheduleStore();
    await putSchedule(store, { workflowId: 'wf_bad', cron: '0 10 * * *' });
    await putSchedule(store, { workflowId: 'wf_good', cron: '0 10 * * *' });
    const sent: string[] = [];
    let failures = 2;
    const queue = {
      send: async (message: JobMessage) => {
        if (message.kind === 'schedule' && message.workflowId === 'wf_bad' && failures-- > 0)
          throw new Error('queue unavailable');
        if (message.kind === 'schedule') sent.push(`${message.workflowId}@${new Date().toISOString()}`);
      },
    };

    // Act
    start({ store, queue, retryDelayInMs: 1_000 });
    await vi.advanceTimersByTimeAsync(60_000);

    // Assess
    expect(sent).toEqual(['wf_good@2025-06-01T10:00:00.000Z', 'wf_bad@2025-06-01T10:00:02.000Z']);
  });
});
