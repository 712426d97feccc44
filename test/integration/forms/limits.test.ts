/**
 * Form submissions are rate limited per source address before any password is checked, and failed
 * attempts per form; the answers carry the form's buckets, never the creator's.
 */
import { describe, expect, it } from 'vitest';
import { everyFieldGraph, formOf, workflowOf } from '../../support/forms';
import { requestFrom } from '../../support/from-address';
import { useLocalService } from '../../support/service';

// Slow refills (one token every 10 s), so a burst used up stays used up for the length of a test.
const slow = (maxBurst: number) => ({ requestsPerMinute: 6, maxBurst });
const unreachable = { requestsPerMinute: 600_000, maxBurst: 100_000 };
process.env.RATE_LIMITS_JSON = JSON.stringify({
  free: { api: unreachable, sync: unreachable, async: unreachable },
  authFailures: unreachable,
  formSources: slow(3),
  formFailures: slow(5),
});

const service = useLocalService();

/** A submission from the given loopback address, which the service takes as the visitor's. */
const submitFrom = (localAddress: string, identifier: string, body: unknown) =>
  requestFrom(localAddress, service.get().url, 'POST', `/api/form/${identifier}`, { body });

describe('form submission limits', () => {
  it('refuses a source address past its burst with 429 and Retry-After, counting wrong passwords like submissions', async () => {
    // Prepare
    const tenant = await service.get().newTenant('limits');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      authType: 'password',
      password: 'letmein',
    });
    const body = (password: string) => ({ formData: { name: 'Ada' }, password });

    // Act
    const wrong1 = await submitFrom('127.0.0.11', form.identifier, body('nope'));
    const wrong2 = await submitFrom('127.0.0.11', form.identifier, body('nope'));
    const right = await submitFrom('127.0.0.11', form.identifier, body('letmein'));
    const refused = await submitFrom('127.0.0.11', form.identifier, body('letmein'));
    const otherSource = await submitFrom('127.0.0.12', form.identifier, body('letmein'));

    // Assess
    expect([wrong1.status, wrong2.status, right.status]).toEqual([401, 401, 200]);
    expect(right.headers['x-ratelimit-limit']).toBe('6');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error).toContain('form submissions from this address');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(otherSource.status).toBe(200);
  });

  it('counts only failed attempts against a form: submissions that pass never use it up', async () => {
    // Prepare
    const tenant = await service.get().newTenant('limits');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      authType: 'password',
      password: 'letmein',
    });
    const body = (password: string) => ({ formData: { name: 'Ada' }, password });

    // Act: more right passwords than the form's failure burst (5), from different addresses
    const right = [];
    for (const address of [
      '127.0.0.41',
      '127.0.0.42',
      '127.0.0.43',
      '127.0.0.44',
      '127.0.0.45',
      '127.0.0.46',
    ])
      right.push(await submitFrom(address, form.identifier, body('letmein')));

    // Assess
    expect(right.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('refuses every attempt at a form once many addresses have used up its failed attempts, and leaves other forms open', async () => {
    // Prepare
    const tenant = await service.get().newTenant('limits');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const busy = await formOf(tenant, workflowId, { authType: 'password', password: 'letmein' });
    const quiet = await formOf(tenant, workflowId, { authType: 'password', password: 'letmein' });
    const body = (password: string) => ({ formData: { name: 'Ada' }, password });

    // Act
    const wrong = [];
    for (const address of ['127.0.0.21', '127.0.0.22', '127.0.0.23', '127.0.0.24', '127.0.0.25'])
      wrong.push(await submitFrom(address, busy.identifier, body('nope')));
    const sixth = await submitFrom('127.0.0.26', busy.identifier, body('letmein'));
    const other = await submitFrom('127.0.0.27', quiet.identifier, body('letmein'));

    // Assess
    expect(wrong.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401]);
    expect(sixth.status).toBe(429);
    expect(sixth.body.error).toContain('failed attempts at this form');
    expect(other.status).toBe(200);
  });

  it('does not show strangers the limits of the form creator', async () => {
    const tenant = await service.get().newTenant('limits');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()));

    const answer = await submitFrom('127.0.0.31', form.identifier, { formData: { name: 'Ada' } });

    expect(answer.status).toBe(200);
    // The form's per-source bucket (6 a minute), not the creator's async bucket (600,000).
    expect(answer.headers['x-ratelimit-limit']).toBe('6');
  });
});
