/**
 * Checks a webhook call against the webhook's secret, in either of two ways:
 *
 * - `svc-signature: t=<unix ms>,v1=<hex>`: HMAC-SHA256 keyed with the secret over `<t>.<raw body>`,
 *   as the service signs its own deliveries (see the client library's `verifyWebhookSignature`);
 * - `Authorization: Bearer <secret>`.
 *
 * The signature scheme itself is ./signature-scheme.ts, the same text as the client library's
 * sdk/src/webhooks.ts, so the service signs and checks with the code its webhook receivers are given.
 */
import { sameText, type SignatureCheck, verifyWebhookSignature } from './signature-scheme';

export {
  type SignatureCheck,
  signatureHeaderOf,
  signatureOf,
  signatureToleranceInSeconds,
  verifyWebhookSignature,
} from './signature-scheme';

export function checkWebhookCall(
  secret: string,
  call: { signatureHeader?: string; authorizationHeader?: string; rawBody: string },
  nowInMs: number,
): SignatureCheck {
  if (call.signatureHeader !== undefined)
    return verifyWebhookSignature(secret, call.signatureHeader, call.rawBody, nowInMs);
  const bearer = /^Bearer\s+(.+)$/i.exec(call.authorizationHeader?.trim() ?? '')?.[1];
  if (bearer !== undefined) {
    return sameText(bearer, secret) ? { valid: true } : { valid: false, reason: 'The bearer token is wrong' };
  }
  return {
    valid: false,
    reason: 'This webhook needs a svc-signature header or an Authorization: Bearer token',
  };
}
