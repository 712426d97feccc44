/**
 * What the client library's verifyWebhookSignature adds for receivers beyond the service's own use
 * (covered in test/unit/webhooks): header arrays as Node gives them, bodies as bytes, now by default.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fromProjectRoot } from '../../../lib/project';
import { signatureHeaderOf as serviceSigns } from '../../../core/webhooks/signature';
import { signatureHeaderOf, verifyWebhookSignature } from '../../../sdk/src/index';

const secret = 'whsec_receiver-secret';
const body = '{"id":"evt_1","type":"workflow.execution.completed"}';

describe('verifyWebhookSignature', () => {
  it('is the code the service signs with: the same module text in the client library and in core', async () => {
    // Act
    const [published, service] = await Promise.all(
      ['sdk/src/webhooks.ts', 'core/webhooks/signature-scheme.ts'].map((path) =>
        readFile(fromProjectRoot(path), 'utf8'),
      ),
    );

    // Assess
    expect(published).toBe(service);
    expect(serviceSigns(secret, 1_700_000_000_000, body)).toBe(
      signatureHeaderOf(secret, 1_700_000_000_000, body),
    );
  });

  it('accepts a delivery signed now, with the body as bytes and the header in an array', () => {
    // Prepare
    const header = signatureHeaderOf(secret, Date.now(), body);

    // Act
    const check = verifyWebhookSignature(secret, [header], new TextEncoder().encode(body));

    // Assess
    expect(check).toEqual({ valid: true });
  });

  it('refuses a missing header, an empty secret, and a delivery older than 5 minutes', () => {
    // Prepare
    const now = Date.parse('2026-11-25T12:00:00.000Z');
    const old = now - 5 * 60 * 1000 - 1;

    // Act
    const checks = [
      verifyWebhookSignature(secret, undefined, body, now),
      verifyWebhookSignature('', signatureHeaderOf('', now, body), body, now),
      verifyWebhookSignature(secret, signatureHeaderOf(secret, old, body), body, now),
    ];

    // Assess
    expect(checks).toEqual([
      { valid: false, reason: 'The svc-signature header is missing' },
      { valid: false, reason: 'The webhook secret is empty' },
      { valid: false, reason: 'The signature timestamp is more than 5 minutes from now' },
    ]);
  });
});
