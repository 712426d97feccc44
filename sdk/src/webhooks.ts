/**
 * Signatures of the service's webhook deliveries (`svc-signature: t=<unix ms>,v1=<hex>`):
 * HMAC-SHA256 keyed with the webhook's secret over `<t>.<raw body>`, hex encoded. The service signs
 * with `signatureHeaderOf` and checks signed webhook calls with `verifyWebhookSignature`, the same
 * code its receivers get from the client library.
 *
 * One module in two places, the same text in both: core/webhooks/signature-scheme.ts, which the
 * service uses, and sdk/src/webhooks.ts, which the client library publishes (it builds from its own
 * folder, so it cannot import the service's). It depends on nothing but node:crypto.
 * test/unit/sdk/webhooks.test.ts fails when the two differ: change one, copy it over the other.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a signature's timestamp may be from now. */
export const signatureToleranceInSeconds = 5 * 60;

export type SignatureCheck = { valid: true } | { valid: false; reason: string };

/** The hex HMAC-SHA256 of `<timestampInMs>.<rawBody>` keyed with `secret`. */
export function signatureOf(secret: string, timestampInMs: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestampInMs}.${rawBody}`).digest('hex');
}

/** The `svc-signature` header value for a body sent at `timestampInMs`. */
export function signatureHeaderOf(secret: string, timestampInMs: number, rawBody: string): string {
  return `t=${timestampInMs},v1=${signatureOf(secret, timestampInMs, rawBody)}`;
}

/**
 * Verifies an `svc-signature` header, as a receiver of the service's webhook deliveries should:
 * HMAC-SHA256 keyed with the secret over `<t>.<raw body>` (the body exactly as received, before
 * any JSON parsing), compared in constant time, `t` (Unix ms) within 5 minutes of `nowInMs` either
 * way, so that a captured delivery cannot be replayed later. Several `v1=` values may be given (a
 * sender rotating its secret); one matching is enough.
 *
 *   const check = verifyWebhookSignature(secret, request.headers['svc-signature'], rawBody);
 *   if (!check.valid) return reply(400, check.reason);
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | string[] | undefined | null,
  rawBody: string | Uint8Array,
  nowInMs: number = Date.now(),
): SignatureCheck {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === null)
    return { valid: false, reason: 'The svc-signature header is missing' };
  if (typeof secret !== 'string' || secret === '')
    return { valid: false, reason: 'The webhook secret is empty' };
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const [name, ...rest] = part.trim().split('=');
    const text = rest.join('=');
    if (name === 't') timestamp = text;
    if (name === 'v1' && text) signatures.push(text);
  }
  const timestampInMs = Number(timestamp);
  if (!timestamp || !Number.isSafeInteger(timestampInMs) || signatures.length === 0) {
    return { valid: false, reason: 'The svc-signature header must be t=<unix ms>,v1=<hex>' };
  }
  if (Math.abs(nowInMs - timestampInMs) > signatureToleranceInSeconds * 1000) {
    return { valid: false, reason: 'The signature timestamp is more than 5 minutes from now' };
  }
  const expected = signatureOf(secret, timestampInMs, body);
  return signatures.some((signature) => sameText(signature.toLowerCase(), expected))
    ? { valid: true }
    : { valid: false, reason: 'The signature does not match' };
}

/**
 * Constant-time equality of two strings (compared as SHA-256-sized HMACs, so lengths leak nothing).
 * @internal
 */
export function sameText(a: string, b: string): boolean {
  const key = 'webhook-compare';
  return timingSafeEqual(
    createHmac('sha256', key).update(a).digest(),
    createHmac('sha256', key).update(b).digest(),
  );
}
