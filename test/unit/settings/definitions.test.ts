import { describe, expect, it } from 'vitest';
import {
  functionSettings,
  functionSettingsOf,
  localServerSettings,
  parseSettings,
  SettingsError,
} from '../../../catalog/settings';

describe('parseSettings', () => {
  it('gives every default when nothing is set, and takes an empty variable as unset', () => {
    // Act
    const unset = parseSettings(functionSettings, {});
    const empty = parseSettings(functionSettings, { SYNC_BUDGET_MS: '', LOOKUP_CACHE_TTL_MS: '' });

    // Assess
    expect(unset).toMatchObject({
      BASE_CHARGE_PER_RUN_USD: 0.001,
      STEP_BUDGET_MS: 180_000,
      SYNC_BUDGET_MS: 27_000,
      LOG_RETENTION_DAYS: 30,
      LOG_SETTLE_MS: 5_000,
      FILE_URL_EXPIRY_SECONDS: 3600,
      LOOKUP_CACHE_TTL_MS: 10_000,
      RATE_LIMIT_LEASE_TOKENS: 16,
      EMAIL_FROM: 'Workflow service <notifications@workflow-service.invalid>',
    });
    expect(unset.STREAM_BUDGET_MS).toBeUndefined();
    expect(unset.SANDBOX_WORKERS).toBeUndefined();
    expect(empty.SYNC_BUDGET_MS).toBe(27_000);
    expect(empty.LOOKUP_CACHE_TTL_MS).toBe(10_000);
  });

  it('reads numbers within their bounds, text as it is', () => {
    // Act
    const read = parseSettings(functionSettings, {
      SYNC_BUDGET_MS: '3000',
      JOB_RETENTION_DAYS: '2.5',
      LOG_SETTLE_MS: '0',
      RATE_LIMIT_LEASE_TOKENS: '0',
      FILE_URL_EXPIRY_SECONDS: '604800',
      PUBLIC_BASE_URL: 'https://flows.example.com',
    });

    // Assess
    expect(read).toMatchObject({
      SYNC_BUDGET_MS: 3000,
      JOB_RETENTION_DAYS: 2.5,
      LOG_SETTLE_MS: 0,
      RATE_LIMIT_LEASE_TOKENS: 0,
      FILE_URL_EXPIRY_SECONDS: 604_800,
      PUBLIC_BASE_URL: 'https://flows.example.com',
    });
  });

  it.each([
    ['SYNC_BUDGET_MS', 'abc', 'SYNC_BUDGET_MS must be a number of milliseconds greater than 0, not "abc"'],
    ['SYNC_BUDGET_MS', '0', 'SYNC_BUDGET_MS must be a number of milliseconds greater than 0, not "0"'],
    ['STEP_BUDGET_MS', 'Infinity', 'STEP_BUDGET_MS must be a number of milliseconds greater than 0'],
    ['LOG_RETENTION_DAYS', '2.5', 'LOG_RETENTION_DAYS must be a whole number of days, 1 or more'],
    [
      'FILE_URL_EXPIRY_SECONDS',
      '604801',
      'FILE_URL_EXPIRY_SECONDS must be a whole number of seconds from 1 to 604800',
    ],
    ['RATE_LIMIT_LEASE_TOKENS', '101', 'RATE_LIMIT_LEASE_TOKENS must be a whole number from 0 to 100'],
    ['LOOKUP_CACHE_TTL_MS', '-1', 'LOOKUP_CACHE_TTL_MS must be a number of milliseconds, 0 or more'],
    ['SANDBOX_WORKERS', '1.5', 'SANDBOX_WORKERS must be a whole number, 1 or more'],
  ])('refuses %s=%s, naming the variable and what it must be', (name, value, message) => {
    // Act
    const read = () => parseSettings(functionSettings, { [name]: value });

    // Assess
    expect(read).toThrow(SettingsError);
    expect(read).toThrow(message);
  });

  it('names every wrong variable at once', () => {
    // Act
    let error: unknown;
    try {
      parseSettings(functionSettings, { SYNC_BUDGET_MS: 'abc', LOG_SETTLE_MS: '-5', PORT: 'x' });
    } catch (caught) {
      error = caught;
    }

    // Assess
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).name).toBe('SettingsError');
    expect((error as SettingsError).status).toBe(500);
    expect((error as SettingsError).variables).toEqual(['SYNC_BUDGET_MS', 'LOG_SETTLE_MS']);
  });

  it("refuses a LOCAL_HANDLERS that is neither mode, as the local server's start did", () => {
    // Act
    const read = () => parseSettings(localServerSettings, { LOCAL_HANDLERS: 'lambdas' });

    // Assess
    expect(read).toThrow('LOCAL_HANDLERS must be "sources" (the default) or "bundles", not "lambdas"');
  });
});

describe('functionSettingsOf', () => {
  it('gives a family only the settings it reads, and every setting belongs to a family', () => {
    // Act
    const routes = Object.keys(functionSettingsOf('routes'));
    const workers = Object.keys(functionSettingsOf('workers'));
    const tasks = Object.keys(functionSettingsOf('tasks'));

    // Assess
    expect(routes).toContain('SYNC_BUDGET_MS');
    expect(routes).toContain('OIDC_ISSUER');
    expect(tasks).toContain('STEP_BUDGET_MS');
    expect(workers).not.toContain('STEP_BUDGET_MS');
    expect(workers).toContain('SLACK_API_URL');
    expect(new Set([...routes, ...workers, ...tasks])).toEqual(new Set(Object.keys(functionSettings)));
  });
});
