/** The guarded HTTP client of outbound requests, with the operator's `OUTBOUND_ALLOWLIST`. */
import { createGuardedHttpClient, type GuardedHttpClientOptions } from '../../adapters/http/guarded-client';
import { OutboundAllowlist } from '../../core/net/allowlist';
import type { HttpClient } from '../../core/net/http';
import { setting } from '../settings';

export function guardedHttpClient(options: Omit<GuardedHttpClientOptions, 'allowlist'>): HttpClient {
  return createGuardedHttpClient({
    ...options,
    allowlist: OutboundAllowlist.parse(setting('OUTBOUND_ALLOWLIST')),
  });
}
