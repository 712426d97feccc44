import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors';
import {
  canonicalTimezone,
  eventBridgeCron,
  eventBridgeExpression,
  latestFireAtOrBefore,
  nextFireAfter,
  nextFiresAfter,
  normalizeCron,
  type Timing,
  timingOf,
} from '../../../core/schedules/cron';

const cron = (expression: string, timezone = 'UTC'): Timing => ({ kind: 'cron', cron: expression, timezone });
const iso = (dates: Date[]) => dates.map((date) => date.toISOString());

function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('Expected a ValidationError');
}

describe('normalizeCron', () => {
  it('keeps five fields, upper-cased and one space apart', () => {
    // Act
    const normalized = normalizeCron('  0   9 * * mon-fri ');

    // Assess
    expect(normalized).toBe('0 9 * * MON-FRI');
  });

  it('reads a ? day field as *', () => {
    // Act
    const normalized = normalizeCron('0 9 ? * MON');

    // Assess
    expect(normalized).toBe('0 9 * * MON');
  });

  it.each([
    ['@hourly', '0 * * * *'],
    ['@daily', '0 0 * * *'],
    [' @Weekly ', '0 0 * * 0'],
    ['@monthly', '0 0 1 * *'],
    ['@yearly', '0 0 1 1 *'],
  ])('accepts the macro %s as the five fields %s', (text, fields) => {
    // Act
    const normalized = normalizeCron(text);

    // Assess
    expect(normalized).toBe(fields);
  });

  it('refuses an unknown macro with a 400 naming cron and the macros it knows', () => {
    // Act
    const error = refusal(() => normalizeCron('@fortnightly'));

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.details).toEqual([{ path: 'cron', message: expect.stringContaining('@daily') }]);
  });

  it.each([
    ['* * * *', '4'],
    ['0 * * * * *', '6'],
  ])('refuses %s with a 400 naming cron and the field count', (text, count) => {
    // Act
    const error = refusal(() => normalizeCron(text));

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.details).toEqual([{ path: 'cron', message: expect.stringContaining(`has ${count}`) }]);
  });

  it.each(['61 * * * *', '0 25 * * *', '0 0 * 13 *', 'a b c d e', '5/10 * * * *'])(
    'refuses %s, which does not parse, naming cron',
    (text) => {
      // Act
      const error = refusal(() => normalizeCron(text));

      // Assess
      expect(error.details?.[0].path).toBe('cron');
      expect(error.message).toContain('Invalid cron');
    },
  );

  it('refuses a cron that never fires', () => {
    // Act
    const error = refusal(() => normalizeCron('0 0 30 2 *'));

    // Assess
    expect(error.message).toContain('never fires');
    expect(error.details?.[0].path).toBe('cron');
  });

  it('refuses a cron that restricts both day fields, since EventBridge cannot express it', () => {
    // Act
    const error = refusal(() => normalizeCron('0 9 1 * MON'));

    // Assess
    expect(error.message).toContain('both the day of month and the day of week');
    expect(error.details?.[0].path).toBe('cron');
  });

  it('refuses a ? outside the day fields', () => {
    // Act
    const error = refusal(() => normalizeCron('? 9 * * *'));

    // Assess
    expect(error.details?.[0].path).toBe('cron');
  });
});

describe('canonicalTimezone', () => {
  it('answers the canonical spelling of an IANA name', () => {
    // Act
    const zone = canonicalTimezone('europe/berlin');

    // Assess
    expect(zone).toBe('Europe/Berlin');
  });

  it.each(['Mars/Olympus_Mons', '+02:00', 'UTC; DROP', ''])(
    'refuses %j with a 400 naming timezone',
    (name) => {
      // Act
      const error = refusal(() => canonicalTimezone(name));

      // Assess
      expect(error.details).toEqual([
        { path: 'timezone', message: expect.stringContaining('Unknown time zone') },
      ]);
    },
  );
});

describe('nextFireAfter with a cron', () => {
  it('fires at the wall-clock time of the zone', () => {
    // Act
    const next = nextFireAfter(cron('0 9 * * *', 'Asia/Tokyo'), new Date('2025-06-01T12:00:00Z'));

    // Assess
    expect(next?.toISOString()).toBe('2025-06-02T00:00:00.000Z');
  });

  it('fires a fire that is exactly at the reference only when asked for one after it', () => {
    // Act
    const next = nextFireAfter(cron('0 9 * * *'), new Date('2025-06-01T09:00:00Z'));

    // Assess
    expect(next?.toISOString()).toBe('2025-06-02T09:00:00.000Z');
  });

  it('fires 02:30 in Berlin once on the spring-forward day, at 03:00 local, the first instant after the gap', () => {
    // Act
    const fires = nextFiresAfter(cron('30 2 * * *', 'Europe/Berlin'), new Date('2025-03-29T12:00:00Z'), 3);

    // Assess
    expect(iso(fires)).toEqual([
      '2025-03-30T01:00:00.000Z', // 03:00 CEST: 02:30 does not exist that night
      '2025-03-31T00:30:00.000Z', // 02:30 CEST
      '2025-04-01T00:30:00.000Z',
    ]);
  });

  it('fires 02:30 in Berlin once on the fall-back day, at its first occurrence', () => {
    // Act
    const fires = nextFiresAfter(cron('30 2 * * *', 'Europe/Berlin'), new Date('2025-10-25T12:00:00Z'), 3);

    // Assess
    expect(iso(fires)).toEqual([
      '2025-10-26T00:30:00.000Z', // 02:30 CEST; 02:30 CET an hour later does not fire again
      '2025-10-27T01:30:00.000Z', // 02:30 CET
      '2025-10-28T01:30:00.000Z',
    ]);
  });

  it('fires 01:30 in New York once on the fall-back day, at its first occurrence', () => {
    // Act
    const fires = nextFiresAfter(cron('30 1 * * *', 'America/New_York'), new Date('2025-11-01T12:00:00Z'), 2);

    // Assess
    expect(iso(fires)).toEqual(['2025-11-02T05:30:00.000Z', '2025-11-03T06:30:00.000Z']);
  });

  it('follows real time for a cron with a step: both passes of the repeated hour fire', () => {
    // Act
    const fires = nextFiresAfter(cron('*/30 * * * *', 'Europe/Berlin'), new Date('2025-10-26T00:00:00Z'), 4);

    // Assess
    expect(iso(fires)).toEqual([
      '2025-10-26T00:30:00.000Z', // 02:30 CEST
      '2025-10-26T01:00:00.000Z', // 02:00 CET
      '2025-10-26T01:30:00.000Z', // 02:30 CET
      '2025-10-26T02:00:00.000Z',
    ]);
  });
});

describe('latestFireAtOrBefore', () => {
  it('counts a fire exactly at the reference', () => {
    // Act
    const latest = latestFireAtOrBefore(cron('0 9 * * *'), new Date('2025-06-01T09:00:00Z'));

    // Assess
    expect(latest?.toISOString()).toBe('2025-06-01T09:00:00.000Z');
  });

  it('answers the latest of several missed fires', () => {
    // Act
    const latest = latestFireAtOrBefore(cron('0 * * * *', 'Europe/Berlin'), new Date('2025-06-03T10:17:00Z'));

    // Assess
    expect(latest?.toISOString()).toBe('2025-06-03T10:00:00.000Z');
  });
});

describe('rate timing', () => {
  const rate = timingOf({ rateMinutes: 15, timezone: 'UTC', updatedAt: '2025-06-01T10:00:42.123Z' });

  it('counts from the whole minute the schedule was put, not firing at it', () => {
    // Act
    const fires = nextFiresAfter(rate, new Date('2025-06-01T10:00:42.123Z'), 2);

    // Assess
    expect(iso(fires)).toEqual(['2025-06-01T10:15:00.000Z', '2025-06-01T10:30:00.000Z']);
  });

  it('answers the latest fire at or before an instant, and none before the first', () => {
    // Act
    const latest = latestFireAtOrBefore(rate, new Date('2025-06-01T11:07:00Z'));
    const none = latestFireAtOrBefore(rate, new Date('2025-06-01T10:14:59Z'));

    // Assess
    expect(latest?.toISOString()).toBe('2025-06-01T11:00:00.000Z');
    expect(none).toBeNull();
  });
});

/** The converted expression read back by croner in Quartz form (Sunday 1), for comparison. */
function fromEventBridge(expression: string, timezone: string): Cron {
  const fields = /^cron\((.*)\)$/.exec(expression)?.[1].split(' ') ?? [];
  const pattern = ['0', ...fields.map((field) => (field === '?' ? '*' : field))].join(' ');
  return new Cron(pattern, {
    timezone,
    alternativeWeekdays: true,
    sloppyRanges: true,
    fixedTimeRule: 'no-wildcard',
    paused: true,
  });
}

describe('eventBridgeCron', () => {
  it.each([
    ['0 9 * * MON-FRI', 'cron(0 9 ? * 2-6 *)'],
    ['0 9 * * 1-5', 'cron(0 9 ? * 2-6 *)'],
    ['*/15 * * * *', 'cron(0/15 * * * ? *)'],
    ['0 */2 */10 * *', 'cron(0 0/2 1/10 * ? *)'],
    ['0 0 1 * *', 'cron(0 0 1 * ? *)'],
    ['0 0 * * 0', 'cron(0 0 ? * 1 *)'],
    ['0 0 * * 7', 'cron(0 0 ? * 1 *)'],
    ['0 0 * * 5-7', 'cron(0 0 ? * 1,6,7 *)'],
    ['0 0 * * */2', 'cron(0 0 ? * 1,3,5,7 *)'],
    ['0 0 * * FRI#2', 'cron(0 0 ? * 6#2 *)'],
    ['0 0 * * 5L', 'cron(0 0 ? * 6L *)'],
    ['10-50/20 * * * *', 'cron(10,30,50 * * * ? *)'],
    ['0 0 L * *', 'cron(0 0 L * ? *)'],
    ['0 0 * JAN-MAR/2 *', 'cron(0 0 * 1,3 ? *)'],
  ])('writes %s as %s', (text, expected) => {
    // Act
    const expression = eventBridgeCron(normalizeCron(text));

    // Assess
    expect(expression).toBe(expected);
  });

  it.each([
    ['0 9 * * 1-5', 'Europe/Berlin'],
    ['*/15 8-18 * * *', 'America/New_York'],
    ['30 2 * * *', 'Europe/Berlin'],
    ['0 0 */10 * *', 'UTC'],
    ['0 12 * * 5-7', 'Asia/Tokyo'],
    ['15 3 * * SUN#1', 'Australia/Sydney'],
    ['5,35 */3 * * *', 'UTC'],
  ])('fires %s on the same instants once written for EventBridge (%s)', (text, timezone) => {
    // Prepare
    const normalized = normalizeCron(text);
    const from = new Date('2025-03-01T00:00:00Z');

    // Act
    const converted = fromEventBridge(eventBridgeCron(normalized), timezone).nextRuns(60, from);

    // Assess
    expect(iso(converted)).toEqual(iso(nextFiresAfter(cron(normalized, timezone), from, 60)));
  });
});

describe('eventBridgeExpression', () => {
  it('passes a cron with its time zone', () => {
    // Act
    const expression = eventBridgeExpression(
      { cron: '0 9 * * *', timezone: 'Europe/Berlin', updatedAt: '2025-06-01T10:00:00Z' },
      new Date('2025-06-01T10:00:00Z'),
    );

    // Assess
    expect(expression).toEqual({ expression: 'cron(0 9 * * ? *)', timezone: 'Europe/Berlin' });
  });

  it('writes a rate of one minute in the singular and starts it on the next fire', () => {
    // Act
    const expression = eventBridgeExpression(
      { rateMinutes: 1, timezone: 'UTC', updatedAt: '2025-06-01T10:00:30Z' },
      new Date('2025-06-01T10:05:10Z'),
    );

    // Assess
    expect(expression).toEqual({
      expression: 'rate(1 minute)',
      timezone: 'UTC',
      startDate: new Date('2025-06-01T10:06:00Z'),
    });
  });

  it('starts a rate on the minutes counted from when the schedule was put', () => {
    // Act
    const expression = eventBridgeExpression(
      { rateMinutes: 45, timezone: 'UTC', updatedAt: '2025-06-01T10:00:00Z' },
      new Date('2025-06-01T12:00:00Z'),
    );

    // Assess
    expect(expression.expression).toBe('rate(45 minutes)');
    expect(expression.startDate?.toISOString()).toBe('2025-06-01T12:15:00.000Z');
  });
});
