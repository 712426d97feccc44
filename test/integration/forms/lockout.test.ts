/**
 * With the default limits, wrong passwords from many addresses do not lock the right one out: the
 * per-form limit counts failed attempts only, and its burst is beyond what 300 attempts use.
 */
import { describe, expect, it } from 'vitest';
import { everyFieldGraph, formOf, workflowOf } from '../../support/forms';
import { requestFrom } from '../../support/from-address';
import { useLocalService } from '../../support/service';

const service = useLocalService();

/** The n-th of a run of loopback addresses, each a source of its own. */
const addressOf = (n: number) => `127.0.${10 + Math.floor(n / 250)}.${1 + (n % 250)}`;

describe('password form under rotating wrong passwords', { timeout: 180_000 }, () => {
  it('admits the right password from a new address after 300 wrong ones from rotating addresses', async () => {
    // Prepare
    const tenant = await service.get().newTenant('lockout');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      authType: 'password',
      password: 'the right one',
    });
    const attempt = (address: string, password: string, read: boolean) =>
      read
        ? requestFrom(address, service.get().url, 'GET', `/api/form/${form.identifier}`, {
            headers: { 'x-form-password': encodeURIComponent(password) },
          })
        : requestFrom(address, service.get().url, 'POST', `/api/form/${form.identifier}`, {
            body: { formData: { name: 'Ada' }, password },
          });

    // Act: half of them submissions, half config reads, ten at a time
    const statuses: number[] = [];
    for (let batch = 0; batch < 30; batch += 1) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) => {
          const n = batch * 10 + index;
          return attempt(addressOf(n), `guess ${n}`, n % 2 === 0);
        }),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    const read = await attempt('127.0.9.1', 'the right one', true);
    const submitted = await attempt('127.0.9.2', 'the right one', false);

    // Assess
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(read.status).toBe(200);
    expect(submitted.status).toBe(200);
  });
});
