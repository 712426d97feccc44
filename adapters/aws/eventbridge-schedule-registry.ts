/**
 * ScheduleRegistry on EventBridge Scheduler: one schedule per workflow, in the group named by
 * `SCHEDULE_GROUP_NAME`, whose target sends the fire message to the jobs queue
 * (`SCHEDULE_TARGET_QUEUE_ARN`) as the role `SCHEDULER_ROLE_ARN`. EventBridge fills in each fire's
 * nominal time, which the jobs worker turns into the run's deterministic id.
 */
import { createHash } from 'node:crypto';
import {
  ConflictException,
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { scheduleGroups } from '../../catalog/resources';
import { ValidationError } from '../../core/errors';
import type { JobMessage } from '../../core/jobs/types';
import { eventBridgeExpression } from '../../core/schedules/cron';
import type { Schedule, ScheduleRegistry } from '../../core/schedules/types';
import { decorated, region } from './client-options';
import { requireEnv } from './require-env';

/** EventBridge's placeholder for a fire's nominal time, replaced in the target input at each fire. */
export const SCHEDULED_TIME_PLACEHOLDER = '<aws.scheduler.scheduled-time>';

export interface EventBridgeScheduleRegistryOptions {
  client: SchedulerClient;
  groupName: string;
  roleArn: string;
  targetArn: string;
  now?: () => Date;
}

let client: SchedulerClient | undefined;

/** Schedule names allow letters, digits, `.`, `_` and `-`, at most 64. */
export function scheduleNameOf(workflowId: string): string {
  if (/^[0-9A-Za-z._-]{1,64}$/.test(workflowId)) return workflowId;
  return `workflow-${createHash('sha256').update(workflowId).digest('hex').slice(0, 40)}`;
}

export class EventBridgeScheduleRegistry implements ScheduleRegistry {
  constructor(private readonly options: EventBridgeScheduleRegistryOptions) {}

  /** On the Lambda's role and region, with the catalog's environment variables. */
  static fromEnv(): EventBridgeScheduleRegistry {
    const group = scheduleGroups.workflows;
    client ??= decorated(
      new SchedulerClient({
        region: region(),
      }),
      'Scheduler',
    );
    return new EventBridgeScheduleRegistry({
      client,
      groupName: requireEnv(group.envVar),
      roleArn: requireEnv(group.roleEnvVar),
      targetArn: requireEnv(group.targetArnEnvVar),
    });
  }

  /** Creates the schedule, or updates it when it exists (UpdateSchedule replaces every field). */
  async apply(schedule: Schedule): Promise<void> {
    const request = this.request(schedule);
    try {
      try {
        await this.options.client.send(new CreateScheduleCommand(request));
      } catch (error) {
        if (!(error instanceof ConflictException)) throw error;
        await this.options.client.send(new UpdateScheduleCommand(request));
      }
    } catch (error) {
      throw refusal(error);
    }
  }

  async remove(workflowId: string): Promise<void> {
    try {
      await this.options.client.send(
        new DeleteScheduleCommand({ Name: scheduleNameOf(workflowId), GroupName: this.options.groupName }),
      );
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return;
      throw error;
    }
  }

  private request(schedule: Schedule): CreateScheduleCommandInput {
    const { expression, timezone, startDate } = eventBridgeExpression(
      schedule,
      (this.options.now ?? (() => new Date()))(),
    );
    const message: JobMessage = {
      kind: 'schedule',
      workflowId: schedule.workflowId,
      scheduledTime: SCHEDULED_TIME_PLACEHOLDER,
    };
    return {
      Name: scheduleNameOf(schedule.workflowId),
      GroupName: this.options.groupName,
      Description: `Runs workflow ${schedule.workflowId}`.slice(0, 512),
      ScheduleExpression: expression,
      ScheduleExpressionTimezone: timezone,
      ...(startDate ? { StartDate: startDate } : {}),
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: schedule.enabled ? 'ENABLED' : 'DISABLED',
      Target: {
        Arn: this.options.targetArn,
        RoleArn: this.options.roleArn,
        Input: JSON.stringify(message),
      },
    };
  }
}

/** An expression EventBridge refuses is the caller's cron; anything else stays internal. */
function refusal(error: unknown): unknown {
  if (!(error instanceof ValidationException)) return error;
  const message = `EventBridge Scheduler refused the schedule: ${error.message}`;
  return new ValidationError(message, [{ path: 'cron', message }], { cause: error });
}
