/**
 * The one seam between the Lambda wiring and the local server: adapters that cannot run outside
 * AWS (Step Functions) are replaced here by the local emulators before any handler runs, and adapters
 * of the local emulators only (the key file) are given here, so that no Lambda bundle carries them.
 */
import type { ModelGateway } from '../../core/engine/types';
import type { KeyWrapper } from '../../core/environment/envelope';
import type { HttpClient } from '../../core/net/http';
import type { StateMachineStarter } from '../../core/runs/by-reference';
import type { ScheduleRegistry } from '../../core/schedules/types';

export interface AdapterOverrides {
  executionStarter?: StateMachineStarter;
  /** Local tests only: a guard that lets loopback through, to reach test servers. */
  http?: HttpClient;
  /** Local tests only: a model gateway pointed at test servers. */
  models?: ModelGateway;
  /** Locally: the in-process scheduler's registry, in place of EventBridge Scheduler. */
  scheduleRegistry?: ScheduleRegistry;
  /** Locally: the wrapper of the key file named by `ENVIRONMENT_KEY_FILE`, in place of KMS. */
  keyFileWrapper?: (keyFile: string) => KeyWrapper;
}

export const overrides: AdapterOverrides = {};

export function overrideAdapters(values: AdapterOverrides): void {
  Object.assign(overrides, values);
}
