/**
 * Wiring of the check of a notification's webhook URL when it is saved: the guard the worker
 * delivers through (./notification-worker.ts), with OUTBOUND_ALLOWLIST as it is now. Only the
 * routes that save subscriptions import it, so the others' bundles carry no guard.
 */
import { guardedHttpClient } from './outbound';

export function webhookUrlRefusal(url: string): string | undefined {
  return guardedHttpClient({ maxRedirects: 0 }).refusalOf?.(url);
}
