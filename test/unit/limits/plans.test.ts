import { describe, expect, it } from 'vitest';
import { defaultPlanLimits, planLimitsFrom } from '../../../core/limits/plans';

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
