/**
 * The schedule use cases: put, read and remove a workflow's schedule; keep the registry (what
 * fires) in step with deployment, since a schedule fires only while its workflow is deployed; and
 * turn one fire into the run it starts.
 */
import { createHash } from 'node:crypto';
import { validateStartInput } from '../engine/input';
import { NotFoundError, RunsInProgressLimitError, UsageLimitExceededError, ValidationError } from '../errors';
import { permits } from '../identity/access';
import type { Principal } from '../identity/service';
import type { IdentityStore } from '../identity/types';
import type { AccessPolicy } from '../permissions/types';
import type { ExecutionRequest } from '../runs/types';
import { loadWorkflow } from '../workflows/service';
import type { WorkflowStore } from '../workflows/types';
import { canonicalTimezone, nextFireAfter, normalizeCron, timingOf } from './cron';
import type { Schedule, ScheduleRegistry, ScheduleStore, ScheduleView } from './types';

export interface ScheduleDeps {
  identity: IdentityStore;
  workflows: Pick<WorkflowStore, 'getWorkflow'>;
  schedules: ScheduleStore;
  registry: ScheduleRegistry;
  now: () => Date;
}

export interface PutScheduleBody {
  cron?: string;
  rateMinutes?: number;
  timezone?: string;
  input?: Record<string, unknown>;
  enabled?: boolean;
}

/** Largest schedule input, as JSON: it is kept with the schedule and travels with every run it starts. */
export const maxScheduleInputBytes = 64 * 1024;

/** A rate of at most a year, in whole minutes. */
export const maxRateMinutes = 525_600;

/**
 * Creates or replaces the workflow's schedule (write permission). The first fire is the next one
 * after now; a deployed workflow's registry entry is replaced at once.
 */
export async function putSchedule(
  deps: ScheduleDeps,
  principal: Principal,
  workflowId: string,
  body: PutScheduleBody,
): Promise<ScheduleView> {
  const workflow = await loadWorkflow(deps, principal, workflowId, 'write');
  const definition = scheduleDefinition(body);
  const existing = await deps.schedules.getSchedule(workflowId);
  const now = deps.now();
  const updatedAt = now.toISOString();
  const schedule: Schedule = {
    workflowId,
    workspaceId: workflow.workspaceId,
    ...definition,
    userId: principal.user.id,
    nextRunAt: null,
    // A new definition keeps the history of the old one, but not its complaint.
    ...(existing?.lastRunAt === undefined ? {} : { lastRunAt: existing.lastRunAt }),
    createdAt: existing?.createdAt ?? updatedAt,
    updatedAt,
  };
  schedule.nextRunAt = nextRunAfter(schedule, now);
  await deps.schedules.putSchedule(schedule);
  if (workflow.isDeployed) {
    try {
      await deps.registry.apply(schedule);
    } catch (error) {
      // What fires and what is stored must agree: a schedule the registry refused is not kept.
      if (existing) await deps.schedules.putSchedule(existing);
      else await deps.schedules.deleteSchedule(workflowId);
      throw error;
    }
  }
  return scheduleView(schedule, now);
}

/** The workflow's schedule (read permission); none is a 404. */
export async function getSchedule(
  deps: Omit<ScheduleDeps, 'registry'>,
  principal: Principal,
  workflowId: string,
): Promise<ScheduleView> {
  await loadWorkflow(deps, principal, workflowId, 'read');
  const schedule = await deps.schedules.getSchedule(workflowId);
  if (!schedule) throw new NotFoundError(`Workflow ${workflowId} has no schedule`);
  return scheduleView(schedule, deps.now());
}

/** Removes the workflow's schedule (write permission): it stops firing first, then is forgotten. */
export async function deleteSchedule(
  deps: ScheduleDeps,
  principal: Principal,
  workflowId: string,
): Promise<{ deleted: true }> {
  await loadWorkflow(deps, principal, workflowId, 'write');
  const schedule = await deps.schedules.getSchedule(workflowId);
  if (!schedule) throw new NotFoundError(`Workflow ${workflowId} has no schedule`);
  await deps.registry.remove(workflowId);
  await deps.schedules.deleteSchedule(workflowId);
  return { deleted: true };
}

type RegistryDeps = Pick<ScheduleDeps, 'schedules' | 'registry'>;

/** After a deploy (or redeploy): the workflow's schedule, if it has one, fires from now on. */
export async function applyWorkflowSchedule(deps: RegistryDeps, workflowId: string): Promise<void> {
  const schedule = await deps.schedules.getSchedule(workflowId);
  if (schedule) await deps.registry.apply(schedule);
}

/** After an undeploy: the schedule stops firing, and stays stored for the next deploy. */
export async function withdrawWorkflowSchedule(deps: RegistryDeps, workflowId: string): Promise<void> {
  const schedule = await deps.schedules.getSchedule(workflowId);
  if (schedule) await deps.registry.remove(workflowId);
}

/** After a workflow is deleted: its schedule goes with it. */
export async function deleteWorkflowSchedule(deps: RegistryDeps, workflowId: string): Promise<void> {
  const schedule = await deps.schedules.getSchedule(workflowId);
  if (!schedule) return;
  await deps.registry.remove(workflowId);
  await deps.schedules.deleteSchedule(workflowId);
}

export function scheduleView(schedule: Schedule, now: Date): ScheduleView {
  const { workspaceId: _workspace, userId: _user, nextRunAt: _next, ...rest } = schedule;
  return { ...rest, nextRunAt: nextRunAfter(schedule, now) };
}

function nextRunAfter(schedule: Schedule, now: Date): string | null {
  if (!schedule.enabled) return null;
  return nextFireAfter(timingOf(schedule), now)?.toISOString() ?? null;
}

/** The body checked and brought to the stored form; a bad field is a 400 naming it. */
function scheduleDefinition(
  body: PutScheduleBody,
): Pick<Schedule, 'cron' | 'rateMinutes' | 'timezone' | 'input' | 'enabled'> {
  if ((body.cron === undefined) === (body.rateMinutes === undefined)) {
    throw new ValidationError('Give exactly one of cron and rateMinutes', [
      { path: 'cron', message: 'Give exactly one of cron and rateMinutes' },
    ]);
  }
  const rate = body.rateMinutes;
  if (rate !== undefined && !(Number.isInteger(rate) && rate >= 1 && rate <= maxRateMinutes)) {
    const message = `rateMinutes must be a whole number from 1 to ${maxRateMinutes}`;
    throw new ValidationError(message, [{ path: 'rateMinutes', message }]);
  }
  const input = body.input ?? {};
  if (Buffer.byteLength(JSON.stringify(input), 'utf8') > maxScheduleInputBytes) {
    const message = `input is larger than ${maxScheduleInputBytes / 1024} KB as JSON`;
    throw new ValidationError(message, [{ path: 'input', message }]);
  }
  return {
    ...(body.cron === undefined ? {} : { cron: normalizeCron(body.cron) }),
    ...(rate === undefined ? {} : { rateMinutes: rate }),
    timezone: canonicalTimezone(body.timezone ?? 'UTC'),
    input,
    enabled: body.enabled ?? true,
  };
}

export interface FireDeps {
  identity: Pick<IdentityStore, 'getWorkspaceMembership'>;
  workflows: Pick<WorkflowStore, 'getWorkflow' | 'getDeployment'>;
  schedules: Pick<ScheduleStore, 'getSchedule' | 'recordFire'>;
  /**
   * Admits the fire's run (core/runs/admission.ts): whose usage a run of this user counts against,
   * its owner's key, or a UsageLimitExceededError when the owner's usage limit is reached, or a
   * RunsInProgressLimitError when the workspace is at its cap on runs in progress.
   */
  usageOwnerOf(userId: string, run: { workspaceId: string; executionId: string }): Promise<string>;
  /** The schedule's user's permission group restrictions (see PrepareDeps.policyOf); none: full access. */
  policyOf?(userId: string): Promise<AccessPolicy | undefined>;
  now: () => Date;
}

/**
 * The execution id of one fire, the same however often the fire is delivered, so that it becomes
 * one job and one run (the job's task id and the state machine execution's name).
 */
export function fireExecutionId(workflowId: string, scheduledTime: string): string {
  const digest = createHash('sha256')
    .update(`${workflowId}\n${fireTime(scheduledTime)}`)
    .digest('hex');
  return `sched_${digest.slice(0, 32)}`;
}

/**
 * EventBridge writes `2025-01-01T09:00:00Z`, the local schedule firer `2025-01-01T09:00:00.000Z`: both
 * become the latter, so one fire has one id whoever sent it.
 */
function fireTime(scheduledTime: string): string {
  const time = new Date(scheduledTime);
  if (Number.isNaN(time.getTime())) {
    throw new ValidationError(`Schedule fire time "${scheduledTime}" is not a date`);
  }
  return time.toISOString();
}

/**
 * The run one fire starts, or undefined when it starts none: the schedule is gone or disabled, or
 * the workflow is gone or not deployed (said nowhere: a schedule fires only while deployed), or the
 * schedule's user may no longer write to the workspace, or its input no longer fits the deployed
 * Start block (both said on the schedule as `lastError`). A fire that starts a run is noted as
 * `lastRunAt`. Like `prepareRun`, but with the schedule's input and user, and an id from the fire.
 */
export async function runRequestForFire(
  deps: FireDeps,
  fire: { workflowId: string; scheduledTime: string },
): Promise<ExecutionRequest | undefined> {
  const scheduledTime = fireTime(fire.scheduledTime);
  const schedule = await deps.schedules.getSchedule(fire.workflowId);
  if (!schedule?.enabled) return undefined;
  const workflow = await deps.workflows.getWorkflow(fire.workflowId);
  if (!workflow?.isDeployed || workflow.deployedVersion === undefined) return undefined;
  if (workflow.workspaceId !== schedule.workspaceId) return undefined;
  const membership = await deps.identity.getWorkspaceMembership(workflow.workspaceId, schedule.userId);
  if (!membership || !permits(membership.permissions, 'write')) {
    await deps.schedules.recordFire(fire.workflowId, {
      scheduledTime,
      error: 'The user who put this schedule may no longer run this workflow; put the schedule again',
    });
    return undefined;
  }
  const deployment = await deps.workflows.getDeployment(workflow.id, workflow.deployedVersion);
  if (!deployment) {
    throw new Error(`Deployment ${workflow.deployedVersion} of workflow ${workflow.id} is missing`);
  }
  let input: Record<string, unknown>;
  try {
    input = validateStartInput(deployment.state, schedule.input);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    await deps.schedules.recordFire(fire.workflowId, {
      scheduledTime,
      error: `The schedule's input does not fit the deployed Start block: ${error.message}`,
    });
    return undefined;
  }
  const executionId = fireExecutionId(fire.workflowId, scheduledTime);
  let usageOwner: string;
  try {
    usageOwner = await deps.usageOwnerOf(schedule.userId, { workspaceId: workflow.workspaceId, executionId });
  } catch (error) {
    if (!(error instanceof UsageLimitExceededError || error instanceof RunsInProgressLimitError)) throw error;
    await deps.schedules.recordFire(fire.workflowId, { scheduledTime, error: error.message });
    return undefined;
  }
  const policy = await deps.policyOf?.(schedule.userId);
  await deps.schedules.recordFire(fire.workflowId, { scheduledTime });
  return {
    executionId,
    workflowId: workflow.id,
    workspaceId: workflow.workspaceId,
    userId: schedule.userId,
    deploymentVersion: workflow.deployedVersion,
    trigger: 'schedule',
    input,
    startedAt: deps.now().toISOString(),
    mode: 'async',
    usageOwner,
    ...(policy === undefined ? {} : { policy }),
  };
}
