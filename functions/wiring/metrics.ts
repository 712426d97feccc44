/** Wiring of the metrics route: the caller's memberships and the run counters. */
import { DynamoMetricsStore } from '../../adapters/dynamodb/metrics-store';
import type { MetricsDeps } from '../../core/metrics/service';
import { identityDeps } from './identity';

export function metricsDeps(): MetricsDeps {
  return { identity: identityDeps().store, metrics: DynamoMetricsStore.fromEnv(), now: () => new Date() };
}
