import { describe, expect, it } from 'vitest';
import {
  defaultAuthFailureRate,
  defaultPlanLimits,
  defaultUsageLimitsUsd,
  limitsConfigFrom,
  planLimitsFrom,
  ranksAbove,
} from '../../../core/limits/plans';

describe('planLimitsFrom', () => {
  it('gives the interface values for API calls and twice the rate as the burst of executions', () => {
    expect(planLimitsFrom(undefined).free).toEqual({
      api: { requestsPerMinute: 10, maxBurst: 20 },
      sync: { requestsPerMinute: 60, maxBurst: 120 },
      async: { requestsPerMinute: 200, maxBurst: 400 },
    });
    expect(defaultPlanLimits.enterprise.async).toEqual({ requestsPerMinute: 5000, maxBurst: 10_000 });
  });

  it('overrides only the buckets named', () => {
    const limits = planLimitsFrom('{"pro": {"sync": {"requestsPerMinute": 1, "maxBurst": 2}}}');
    expect(limits.pro.sync).toEqual({ requestsPerMinute: 1, maxBurst: 2 });
    expect(limits.pro.async).toEqual(defaultPlanLimits.pro.async);
    expect(limits.free).toEqual(defaultPlanLimits.free);
  });

  it('refuses an override it cannot apply, naming what is wrong', () => {
    expect(() => planLimitsFrom('{')).toThrow('RATE_LIMITS_JSON is not valid JSON');
    expect(() => planLimitsFrom('{"gold": {}}')).toThrow('unknown plan "gold"');
    expect(() => planLimitsFrom('{"free": {"stream": {}}}')).toThrow('unknown bucket "free.stream"');
    expect(() => planLimitsFrom('{"free": {"api": {"requestsPerMinute": 0, "maxBurst": 1}}}')).toThrow(
      'free.api needs requestsPerMinute and maxBurst, both above 0',
    );
  });
});

describe('limitsConfigFrom', () => {
  it('takes the failed-authentication rate and the usage limits from their variables', () => {
    const config = limitsConfigFrom({
      RATE_LIMITS_JSON: '{"authFailures": {"requestsPerMinute": 5, "maxBurst": 5}}',
      USAGE_LIMITS_JSON: '{"free": 25, "team": 0}',
    });
    expect(config.authFailures).toEqual({ requestsPerMinute: 5, maxBurst: 5 });
    expect(config.usageLimitsUsd).toEqual({ ...defaultUsageLimitsUsd, free: 25, team: 0 });
    expect(config.plans).toEqual(defaultPlanLimits);
  });

  it('keeps the defaults when nothing is set', () => {
    expect(limitsConfigFrom({})).toEqual({
      plans: defaultPlanLimits,
      usageLimitsUsd: { free: 10, pro: 100, team: 500, enterprise: 10_000 },
      runsInProgress: { free: 5, pro: 20, team: 50, enterprise: 200 },
      authFailures: defaultAuthFailureRate,
      formFailures: { requestsPerMinute: 60, maxBurst: 600 },
      formSources: { requestsPerMinute: 10, maxBurst: 20 },
    });
  });

  it('takes the form rates, failed attempts per form and attempts per source address, from RATE_LIMITS_JSON', () => {
    const config = limitsConfigFrom({
      RATE_LIMITS_JSON:
        '{"formFailures": {"requestsPerMinute": 30, "maxBurst": 30}, "formSources": {"requestsPerMinute": 2, "maxBurst": 4}}',
    });

    expect(config.formFailures).toEqual({ requestsPerMinute: 30, maxBurst: 30 });
    expect(config.formSources).toEqual({ requestsPerMinute: 2, maxBurst: 4 });
    expect(() => limitsConfigFrom({ RATE_LIMITS_JSON: '{"formSources": {"requestsPerMinute": 0}}' })).toThrow(
      'RATE_LIMITS_JSON: formSources needs requestsPerMinute and maxBurst, both above 0',
    );
  });

  it("takes a plan's cap on runs in progress from RATE_LIMITS_JSON, beside its buckets", () => {
    // Act
    const config = limitsConfigFrom({
      RATE_LIMITS_JSON: '{"pro": {"runsInProgress": 40, "sync": {"requestsPerMinute": 1, "maxBurst": 2}}}',
    });

    // Assess
    expect(config.runsInProgress).toEqual({ free: 5, pro: 40, team: 50, enterprise: 200 });
    expect(config.plans.pro.sync).toEqual({ requestsPerMinute: 1, maxBurst: 2 });
  });

  it('refuses a cap on runs in progress that is not a whole number from 1 to 5,000', () => {
    for (const cap of ['0', '2.5', '"10"', '5001']) {
      expect(() => limitsConfigFrom({ RATE_LIMITS_JSON: `{"free": {"runsInProgress": ${cap}}}` })).toThrow(
        'RATE_LIMITS_JSON: free.runsInProgress needs a whole number of runs from 1 to 5000',
      );
    }
  });

  it('refuses a usage limit it cannot apply, naming what is wrong', () => {
    expect(() => limitsConfigFrom({ USAGE_LIMITS_JSON: '[1]' })).toThrow(
      'USAGE_LIMITS_JSON must be a JSON object',
    );
    expect(() => limitsConfigFrom({ USAGE_LIMITS_JSON: '{"gold": 1}' })).toThrow('unknown plan "gold"');
    expect(() => limitsConfigFrom({ USAGE_LIMITS_JSON: '{"free": -1}' })).toThrow(
      'free needs a number of USD, zero or more',
    );
    expect(() => limitsConfigFrom({ RATE_LIMITS_JSON: '{"authFailures": {}}' })).toThrow(
      'authFailures needs requestsPerMinute and maxBurst',
    );
  });
});

describe('ranksAbove', () => {
  it('orders the plans free, pro, team, enterprise', () => {
    expect(ranksAbove('team', 'pro')).toBe(true);
    expect(ranksAbove('pro', 'pro')).toBe(false);
    expect(ranksAbove('free', 'enterprise')).toBe(false);
  });
});
