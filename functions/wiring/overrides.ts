/**
 * The one seam between the Lambda wiring and the local server: adapters that cannot run outside
 * AWS (Step Functions) are replaced here by the local stack before any handler runs.
 */
import type { ExecutionStarter } from '../../core/execution/types';

export interface AdapterOverrides {
  executionStarter?: ExecutionStarter;
}

export const overrides: AdapterOverrides = {};

export function overrideAdapters(values: AdapterOverrides): void {
  Object.assign(overrides, values);
}
