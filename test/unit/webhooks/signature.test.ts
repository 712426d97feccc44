import { describe, expect, it } from 'vitest';
import { checkWebhookCall, signatureOf } from '../../../core/webhooks/signature';

const secret = 'whsec_test-secret';
const body = '{"orderId":"A-1"}';
const now = Date.parse('2026-11-22T12:00:00.000Z');
const header = (timestampInMs: number, ...signatures: string[]) =>
  [`t=${timestampInMs}`, ...signatures.map((signature) => `v1=${signature}`)].join(',');

describe('checkWebhookCall', () => {
  it('accepts a signature over "<t>.<raw body>" made with the secret', () => {
    const check = checkWebhookCall(
      secret,
      { signatureHeader: header(now, signatureOf(secret, now, body)), rawBody: body },
      now,
    );
    expect(check).toEqual({ valid: true });
  });

  it('refuses a signature made with another secret', () => {
    const check = checkWebhookCall(
      secret,
      { signatureHeader: header(now, signatureOf('other', now, body)), rawBody: body },
      now,
    );
    expect(check).toEqual({ valid: false, reason: 'The signature does not match' });
  });

  it('refuses a body changed after signing', () => {
    const signature = signatureOf(secret, now, body);
    const check = checkWebhookCall(
      secret,
      { signatureHeader: header(now, signature), rawBody: '{"orderId":"A-2"}' },
      now,
    );
    expect(check.valid).toBe(false);
  });

  it('accepts a timestamp up to 5 minutes old and refuses an older one', () => {
    // Prepare
    const signedAt = (timestampInMs: number) => ({
      signatureHeader: header(timestampInMs, signatureOf(secret, timestampInMs, body)),
      rawBody: body,
    });

    // Act
    const atTheEdge = checkWebhookCall(secret, signedAt(now - 300_000), now);
    const beyond = checkWebhookCall(secret, signedAt(now - 300_001), now);

    // Assess
    expect(atTheEdge.valid).toBe(true);
    expect(beyond.valid).toBe(false);
  });

  it('accepts a timestamp up to 5 minutes ahead, for a sender whose clock runs fast, and refuses one further', () => {
    // Prepare
    const signedAt = (timestampInMs: number) => ({
      signatureHeader: header(timestampInMs, signatureOf(secret, timestampInMs, body)),
      rawBody: body,
    });

    // Act
    const atTheEdge = checkWebhookCall(secret, signedAt(now + 300_000), now);
    const beyond = checkWebhookCall(secret, signedAt(now + 300_001), now);

    // Assess
    expect(atTheEdge.valid).toBe(true);
    expect(beyond).toEqual({
      valid: false,
      reason: 'The signature timestamp is more than 5 minutes from now',
    });
  });

  it('says a stale signature is stale', () => {
    const old = now - 600_000;
    const check = checkWebhookCall(
      secret,
      { signatureHeader: header(old, signatureOf(secret, old, body)), rawBody: body },
      now,
    );
    expect(check).toEqual({
      valid: false,
      reason: 'The signature timestamp is more than 5 minutes from now',
    });
  });

  it('accepts any one of several v1 signatures, as while a sender rotates its secret', () => {
    const signatures = [signatureOf('old-secret', now, body), signatureOf(secret, now, body)];
    expect(
      checkWebhookCall(secret, { signatureHeader: header(now, ...signatures), rawBody: body }, now).valid,
    ).toBe(true);
  });

  it('refuses a header without t or v1', () => {
    expect(checkWebhookCall(secret, { signatureHeader: 'v1=abc', rawBody: body }, now)).toEqual({
      valid: false,
      reason: 'The svc-signature header must be t=<unix ms>,v1=<hex>',
    });
    expect(checkWebhookCall(secret, { signatureHeader: `t=${now}`, rawBody: body }, now).valid).toBe(false);
  });

  it('refuses a timestamp that is not a whole number of milliseconds', () => {
    const signature = signatureOf(secret, now, body);
    const check = checkWebhookCall(
      secret,
      { signatureHeader: `t=${now / 1000}.5,v1=${signature}`, rawBody: body },
      now,
    );
    expect(check.valid).toBe(false);
  });

  it('accepts the secret as a bearer token, in any case of the scheme', () => {
    expect(
      checkWebhookCall(secret, { authorizationHeader: `Bearer ${secret}`, rawBody: body }, now).valid,
    ).toBe(true);
    expect(
      checkWebhookCall(secret, { authorizationHeader: `bearer ${secret}`, rawBody: body }, now).valid,
    ).toBe(true);
    expect(checkWebhookCall(secret, { authorizationHeader: 'Bearer wrong', rawBody: body }, now)).toEqual({
      valid: false,
      reason: 'The bearer token is wrong',
    });
  });

  it('refuses a call with neither a signature nor a token', () => {
    const check = checkWebhookCall(secret, { rawBody: body }, now);
    expect(check.valid).toBe(false);
  });
});
