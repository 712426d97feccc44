import { afterEach, describe, expect, it } from 'vitest';
import { jobRetentionInSeconds } from '../../../functions/wiring/jobs';

const day = 24 * 3600;
const saved = { job: process.env.JOB_RETENTION_DAYS, log: process.env.LOG_RETENTION_DAYS };

afterEach(() => {
  for (const [name, value] of [
    ['JOB_RETENTION_DAYS', saved.job],
    ['LOG_RETENTION_DAYS', saved.log],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('jobRetentionInSeconds', () => {
  it('keeps a job for JOB_RETENTION_DAYS, 7 by default', () => {
    // Prepare
    delete process.env.LOG_RETENTION_DAYS;
    delete process.env.JOB_RETENTION_DAYS;
    const byDefault = jobRetentionInSeconds();
    process.env.JOB_RETENTION_DAYS = '2.5';

    // Act
    const set = jobRetentionInSeconds();

    // Assess
    expect(byDefault).toBe(7 * day);
    expect(set).toBe(2.5 * day);
  });

  it('keeps a job no longer than its run log entry, which tells that it has settled', () => {
    // Prepare
    process.env.LOG_RETENTION_DAYS = '3';
    delete process.env.JOB_RETENTION_DAYS;
    const byDefault = jobRetentionInSeconds();
    process.env.JOB_RETENTION_DAYS = '10';

    // Act
    const set = jobRetentionInSeconds();

    // Assess
    expect(byDefault).toBe(3 * day);
    expect(set).toBe(3 * day);
  });

  it('refuses a retention that is not a positive number of days', () => {
    process.env.JOB_RETENTION_DAYS = '0';
    expect(() => jobRetentionInSeconds()).toThrow('JOB_RETENTION_DAYS must be a positive number of days');
  });
});
