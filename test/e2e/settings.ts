/**
 * What the end-to-end suite asks of the service it starts, shared by the global setup that starts
 * it and the tests that rely on it.
 */
import type { ServiceMode } from '../support/compiled-service';
import { unreachableRateLimitsJson } from '../../support/limits';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `npm start` service of this project's mode (test/e2e/global-setup.ts). */
    e2eService: { mode: ServiceMode; url: string; adminKey: string; dataDir: string };
  }
}

export const adminKey = 'e2e-admin-key';

/**
 * The plan whose buckets the rate-limit tests exhaust: every other plan keeps limits no test can
 * reach (polling a job every 20 ms must not be refused), and users are on `free` unless a test
 * says otherwise. Its `api` bucket holds 3 requests and its `sync` bucket 2, refilled once a minute.
 */
export const tightPlan = 'team';
export const tightBuckets = {
  api: { requestsPerMinute: 1, maxBurst: 3 },
  sync: { requestsPerMinute: 1, maxBurst: 2 },
};

/** How far behind now ascending log reads stop: short, so a poller sees a run soon after it ends. */
export const logSettleInMs = 200;

export function serviceEnv(): Record<string, string> {
  const rateLimits = JSON.parse(unreachableRateLimitsJson);
  rateLimits[tightPlan] = { ...rateLimits[tightPlan], ...tightBuckets };
  return {
    RATE_LIMITS_JSON: JSON.stringify(rateLimits),
    // Notification deliveries and api blocks reach receivers the tests start on loopback.
    OUTBOUND_ALLOWLIST: '127.0.0.1',
    // Permission groups, and with them organizations.
    ACCESS_CONTROL_ENABLED: 'true',
    LOG_SETTLE_MS: String(logSettleInMs),
    // In bundle mode every function keeps its own lookups, as each Lambda does, so a key revoked
    // or a permission granted through one function reaches the others only after this bound
    // (docs/operating.md). The suite checks what each route does, not that bound: nothing is kept.
    LOOKUP_CACHE_TTL_MS: '0',
    POWERTOOLS_LOG_LEVEL: 'WARN',
  };
}
