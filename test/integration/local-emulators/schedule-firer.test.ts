import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { sqsClient } from '../../../adapters/aws/sqs-client';
import { DynamoScheduleStore } from '../../../adapters/dynamodb/schedule-store';
import { queues } from '../../../catalog/resources';
import { newId } from '../../../core/ids';
import { nextFireAfter, timingOf } from '../../../core/schedules/cron';
import { fireExecutionId } from '../../../core/schedules/service';
import type { Schedule } from '../../../core/schedules/types';
import { type ScheduleFirer, startScheduleFirer } from '../../../local/emulators/schedule-firer';
import { useLocalEmulators } from '../../support/local-emulators';

/** A clock the test moves, and timers that never fire: each look at the store is a `tick()`. */
function manualClock(start: string) {
  let now = new Date(start);
  return {
    now: () => now,
    set(iso: string) {
      now = new Date(iso);
    },
    timers: { set: () => undefined, clear: () => undefined },
  };
}

/** Every message on the jobs queue, removed from it. */
async function takeJobMessages(): Promise<unknown[]> {
  const QueueUrl = process.env[queues.jobs.envVar];
  const bodies: unknown[] = [];
  for (;;) {
    const received = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) return bodies;
    for (const message of messages) {
      bodies.push(JSON.parse(message.Body ?? 'null'));
      await sqsClient().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
    }
  }
}

async function putSchedule(
  store: DynamoScheduleStore,
  at: Date,
  fields: Partial<Schedule>,
): Promise<Schedule> {
  const schedule: Schedule = {
    workflowId: newId('wf'),
    workspaceId: newId('ws'),
    timezone: 'UTC',
    input: {},
    enabled: true,
    userId: newId('usr'),
    nextRunAt: null,
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    ...fields,
  };
  schedule.nextRunAt = nextFireAfter(timingOf(schedule), at)?.toISOString() ?? null;
  await store.putSchedule(schedule);
  return schedule;
}

describe('local scheduler on the embedded stack', () => {
  useLocalEmulators();

  const started: ScheduleFirer[] = [];
  const start = (options: Parameters<typeof startScheduleFirer>[0]) => {
    const scheduler = startScheduleFirer({ onError: () => undefined, ...options });
    started.push(scheduler);
    return scheduler;
  };

  afterEach(async () => {
    await Promise.all(started.splice(0).map((scheduler) => scheduler.stop()));
  });

  it('sends each fire to the jobs queue at its minute in the zone, across the spring-forward night', async () => {
    // Prepare
    const clock = manualClock('2025-03-29T12:00:00Z');
    const store = DynamoScheduleStore.fromEnv();
    const schedule = await putSchedule(store, clock.now(), { cron: '30 2 * * *', timezone: 'Europe/Berlin' });
    const scheduler = start({ now: clock.now, timers: clock.timers });

    // Act
    clock.set('2025-03-30T00:59:59Z');
    await scheduler.tick();
    const beforeTheGap = await takeJobMessages();
    clock.set('2025-03-30T01:00:00Z');
    await scheduler.tick();
    await scheduler.tick();
    const atTheGap = await takeJobMessages();
    clock.set('2025-03-31T00:30:00Z');
    await scheduler.tick();
    const nextNight = await takeJobMessages();
    await scheduler.stop();

    // Assess
    expect(beforeTheGap).toEqual([]);
    expect(atTheGap).toEqual([
      { kind: 'schedule', workflowId: schedule.workflowId, scheduledTime: '2025-03-30T01:00:00.000Z' },
    ]);
    expect(nextNight).toEqual([
      { kind: 'schedule', workflowId: schedule.workflowId, scheduledTime: '2025-03-31T00:30:00.000Z' },
    ]);
    expect((await store.getSchedule(schedule.workflowId))?.nextRunAt).toBe('2025-04-01T00:30:00.000Z');
  });

  it('sends a fire that a dead process sent but did not note once more, with the same time, and then moves on', async () => {
    // Prepare
    const clock = manualClock('2025-06-01T09:59:00Z');
    const store = DynamoScheduleStore.fromEnv();
    const schedule = await putSchedule(store, clock.now(), { cron: '0 * * * *' });
    const dying = Object.create(store) as DynamoScheduleStore;
    dying.advanceSchedule = async () => {
      throw new Error('The process died before the schedule moved on');
    };
    clock.set('2025-06-01T10:00:10Z');
    const first = start({ store: dying, now: clock.now, timers: clock.timers });
    await first.tick();
    await first.stop();

    // Act
    const second = start({ now: clock.now, timers: clock.timers });
    await second.tick();
    await second.tick();
    await second.stop();
    const third = start({ now: clock.now, timers: clock.timers });
    await third.tick();
    await third.stop();

    // Assess
    const messages = (await takeJobMessages()) as Array<{ workflowId: string; scheduledTime: string }>;
    const times = messages.filter((message) => message.workflowId === schedule.workflowId);
    expect(times.map((message) => message.scheduledTime)).toEqual([
      '2025-06-01T10:00:00.000Z',
      '2025-06-01T10:00:00.000Z',
    ]);
    const ids = new Set(times.map((message) => fireExecutionId(message.workflowId, message.scheduledTime)));
    expect(ids.size).toBe(1);
    expect((await store.getSchedule(schedule.workflowId))?.nextRunAt).toBe('2025-06-01T11:00:00.000Z');
  });
});
