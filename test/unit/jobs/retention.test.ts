import { afterEach, describe, expect, it } from 'vitest';
import { jobRetentionInSeconds } from '../../../functions/wiring/jobs';
import { changeSettings } from '../../support/settings';

const day = 24 * 3600;
const saved = { job: process.env.JOB_RETENTION_DAYS, log: process.env.LOG_RETENTION_DAYS };

afterEach(() => {
  changeSettings({ JOB_RETENTION_DAYS: saved.job, LOG_RETENTION_DAYS: saved.log });
});

describe('jobRetentionInSeconds', () => {
  it('keeps a job for JOB_RETENTION_DAYS, 7 by default', () => {
    // Prepare
    changeSettings({ LOG_RETENTION_DAYS: undefined, JOB_RETENTION_DAYS: undefined });
    const byDefault = jobRetentionInSeconds();
    changeSettings({ JOB_RETENTION_DAYS: '2.5' });

    // Act
    const set = jobRetentionInSeconds();

    // Assess
    expect(byDefault).toBe(7 * day);
    expect(set).toBe(2.5 * day);
  });

  it('keeps a job no longer than its run log entry, which tells that it has settled', () => {
    // Prepare
    changeSettings({ LOG_RETENTION_DAYS: '3', JOB_RETENTION_DAYS: undefined });
    const byDefault = jobRetentionInSeconds();
    changeSettings({ JOB_RETENTION_DAYS: '10' });

    // Act
    const set = jobRetentionInSeconds();

    // Assess
    expect(byDefault).toBe(3 * day);
    expect(set).toBe(3 * day);
  });

  it('refuses, when the settings are read, a retention that is not a positive number of days', () => {
    expect(() => changeSettings({ JOB_RETENTION_DAYS: '0' })).toThrow(
      'JOB_RETENTION_DAYS must be a positive number of days',
    );
  });
});
