/**
 * Wiring of schedules: the store on the entities table, and the registry that fires them:
 * EventBridge Scheduler in AWS, or what the local service put in the overrides.
 */
import { admitFire } from '../../core/runs/admission';
import { runAdmissionDeps } from './limits';
import { EventBridgeScheduleRegistry } from '../../adapters/aws/eventbridge-schedule-registry';
import { DynamoScheduleStore } from '../../adapters/dynamodb/schedule-store';
import { DynamoWorkflowStore } from '../../adapters/dynamodb/workflow-store';
import { buckets } from '../../catalog/resources';
import type { FireDeps, ScheduleDeps } from '../../core/schedules/service';
import type { ScheduleRegistry } from '../../core/schedules/types';
import { identityDeps } from './identity';
import { accessPolicyOf } from './permissions';
import { overrides } from './overrides';
import { blobStore } from './storage';
import { switchesSetting } from '../settings';
import { optionalEnv } from '../../adapters/aws/require-env';

const now = () => new Date();

/**
 * Made on first use: deploying or undeploying a workflow without a schedule never touches the
 * registry, so those routes need no scheduler settings for it.
 */
export function scheduleRegistry(): ScheduleRegistry {
  let registry: ScheduleRegistry | undefined;
  const resolve = () => {
    registry ??= overrides.scheduleRegistry ?? EventBridgeScheduleRegistry.fromEnv();
    return registry;
  };
  return {
    apply: (schedule) => resolve().apply(schedule),
    remove: (workflowId) => resolve().remove(workflowId),
  };
}

/**
 * A workflow whose graph is large keeps it in the files bucket; where a function was given no
 * bucket, only such workflows fail to load, with an error that says so.
 */
function workflowStore(): DynamoWorkflowStore {
  const bucketed = Boolean(optionalEnv(buckets.files.envVar));
  return DynamoWorkflowStore.fromEnv({ blobStore: bucketed ? blobStore() : undefined });
}

export function scheduleDeps(): ScheduleDeps {
  return {
    identity: identityDeps().store,
    workflows: workflowStore(),
    schedules: DynamoScheduleStore.fromEnv(),
    registry: scheduleRegistry(),
    now,
  };
}

/** What deploy, undeploy and delete of a workflow need to keep its schedule in step. */
export function workflowScheduleDeps(): Pick<ScheduleDeps, 'schedules' | 'registry'> {
  return { schedules: DynamoScheduleStore.fromEnv(), registry: scheduleRegistry() };
}

/** What the jobs worker needs to turn a fire message into a run (`runRequestForFire`). */
export function scheduleFireDeps(): FireDeps {
  return {
    identity: identityDeps().store,
    workflows: workflowStore(),
    schedules: DynamoScheduleStore.fromEnv(),
    usageOwnerOf: (userId, run) =>
      admitFire({ ...runAdmissionDeps(), identity: identityDeps().store }, userId, run),
    policyOf: async (userId) => {
      // With access control off a fire costs no read; else the schedule's user's organization is needed.
      if (!switchesSetting().accessControlEnabled) return undefined;
      const user = await identityDeps().store.getUser(userId);
      return user && accessPolicyOf(user);
    },
    now,
  };
}
