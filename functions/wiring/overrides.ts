/**
 * The one seam between the Lambda wiring and the local server: adapters that cannot run outside
 * AWS (Step Functions) are replaced here by the local stack before any handler runs.
 */
import type { ModelGateway } from '../../core/engine/types';
import type { HttpClient } from '../../core/net/http';
import type { ExecutionStarter } from '../../core/runs/types';
import type { ScheduleRegistry } from '../../core/schedules/types';

export interface AdapterOverrides {
  executionStarter?: ExecutionStarter;
  /** Local tests only: a guard that lets loopback through, to reach test servers. */
  http?: HttpClient;
  /** Local tests only: a model gateway pointed at test servers. */
  models?: ModelGateway;
  /** Locally: the in-process scheduler's registry, in place of EventBridge Scheduler. */
  scheduleRegistry?: ScheduleRegistry;
}

export const overrides: AdapterOverrides = {};

export function overrideAdapters(values: AdapterOverrides): void {
  Object.assign(overrides, values);
}
