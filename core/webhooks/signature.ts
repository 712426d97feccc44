/**
 * Checks a webhook call against the webhook's secret, in either of two ways:
 *
 * - `svc-signature: t=<unix ms>,v1=<hex>`: HMAC-SHA256 keyed with the secret over `<t>.<raw body>`,
 *   as the service signs its own deliveries; several `v1=` values may be given (a sender rotating
 *   its secret), and `t` must be within the tolerance of now, either way, so a captured call
 *   cannot be replayed later;
 * - `Authorization: Bearer <secret>`.
 *
 * Every comparison takes constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a signature's timestamp may be from now. */
export const signatureToleranceInSeconds = 5 * 60;

export type SignatureCheck = { valid: true } | { valid: false; reason: string };

export function signatureOf(secret: string, timestampInMs: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestampInMs}.${rawBody}`).digest('hex');
}

export function checkWebhookCall(
  secret: string,
  call: { signatureHeader?: string; authorizationHeader?: string; rawBody: string },
  nowInMs: number,
): SignatureCheck {
  if (call.signatureHeader !== undefined)
    return checkSignature(secret, call.signatureHeader, call.rawBody, nowInMs);
  const bearer = /^Bearer\s+(.+)$/i.exec(call.authorizationHeader?.trim() ?? '')?.[1];
  if (bearer !== undefined) {
    return sameText(bearer, secret) ? { valid: true } : { valid: false, reason: 'The bearer token is wrong' };
  }
  return {
    valid: false,
    reason: 'This webhook needs a svc-signature header or an Authorization: Bearer token',
  };
}

/**
 * Verifies an `svc-signature` header, as a receiver of the service's webhook deliveries should:
 * HMAC-SHA256 keyed with the secret over `<t>.<raw body>` (the body exactly as received), compared
 * in constant time, `t` (Unix ms) within 5 minutes of `nowInMs`.
 *
 *   const check = verifyWebhookSignature(secret, request.headers['svc-signature'], rawBody, Date.now());
 *   if (!check.valid) return reply(400, check.reason);
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  nowInMs: number,
): SignatureCheck {
  if (header === undefined) return { valid: false, reason: 'The svc-signature header is missing' };
  return checkSignature(secret, header, rawBody, nowInMs);
}

/** The `svc-signature` header value for a body sent at `timestampInMs`. */
export function signatureHeaderOf(secret: string, timestampInMs: number, rawBody: string): string {
  return `t=${timestampInMs},v1=${signatureOf(secret, timestampInMs, rawBody)}`;
}

function checkSignature(secret: string, header: string, rawBody: string, nowInMs: number): SignatureCheck {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [name, ...rest] = part.trim().split('=');
    const value = rest.join('=');
    if (name === 't') timestamp = value;
    if (name === 'v1' && value) signatures.push(value);
  }
  const timestampInMs = Number(timestamp);
  if (!timestamp || !Number.isSafeInteger(timestampInMs) || signatures.length === 0) {
    return { valid: false, reason: 'The svc-signature header must be t=<unix ms>,v1=<hex>' };
  }
  if (Math.abs(nowInMs - timestampInMs) > signatureToleranceInSeconds * 1000) {
    return { valid: false, reason: 'The signature timestamp is more than 5 minutes from now' };
  }
  const expected = signatureOf(secret, timestampInMs, rawBody);
  return signatures.some((signature) => sameText(signature.toLowerCase(), expected))
    ? { valid: true }
    : { valid: false, reason: 'The signature does not match' };
}

/** Constant-time equality of two strings (compared as SHA-256-sized HMACs, so lengths leak nothing). */
function sameText(a: string, b: string): boolean {
  const key = 'webhook-compare';
  return timingSafeEqual(
    createHmac('sha256', key).update(a).digest(),
    createHmac('sha256', key).update(b).digest(),
  );
}
