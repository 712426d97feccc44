/**
 * When a schedule fires: 5-field cron expressions in an IANA time zone (evaluated by croner) and
 * every-N-minutes rates; and the same schedule as an EventBridge Scheduler expression.
 *
 * Cron semantics: standard 5 fields (minute hour day-of-month month day-of-week), Sunday 0 or 7,
 * names (JAN, MON) in any case, `?` read as `*` in the two day fields. Restricting both day fields
 * (which standard cron reads as "either") is refused, because EventBridge cannot express it.
 *
 * Daylight saving time, for a cron whose minute and hour are fixed (no `*`, no step), as Vixie
 * cron does: a wall-clock time that does not exist (02:30 on the spring-forward day in Berlin)
 * fires once at the first instant after the gap (03:00 local), and one that occurs twice (02:30 on
 * the fall-back day in Berlin, 01:30 in New York) fires once, at its first occurrence. A cron with
 * `*` or a step in the minute or hour follows real time: it skips the lost hour and fires in both
 * passes of the repeated one.
 *
 * croner (about 33 KB) is loaded with the first cron parsed or evaluated: it is kept out of the
 * bundles and installed beside the functions that handle schedules (lib/bundling.ts), so those that
 * only write a schedule's EventBridge expression or a rate never load it. Synchronously, because
 * the local schedule firer evaluates crons in synchronous code.
 */
import { createRequire } from 'node:module';
import type { Cron } from 'croner';
import { ValidationError } from '../errors';

type Croner = typeof import('croner');

let croner: Croner | undefined;

function loadCroner(): Croner {
  // A CommonJS bundle has no import.meta.url and requires croner from beside it; the sources
  // (and the local server's ES module build) require it from node_modules.
  croner ??= (import.meta.url ? createRequire(import.meta.url)('croner') : require('croner')) as Croner;
  return croner;
}

export type Timing =
  | { kind: 'cron'; cron: string; timezone: string }
  /** Fires every `rateMinutes` minutes counted from `anchor` (not at the anchor itself). */
  | { kind: 'rate'; rateMinutes: number; anchor: Date };

/** EventBridge Scheduler's limit on a schedule expression. */
const maxExpressionLength = 256;

function cronError(message: string): ValidationError {
  return new ValidationError(message, [{ path: 'cron', message }]);
}

/** The usual cron macros, as the 5 fields they stand for (Vixie cron's meaning). */
export const cronMacros: Readonly<Record<string, string>> = {
  '@YEARLY': '0 0 1 1 *',
  '@ANNUALLY': '0 0 1 1 *',
  '@MONTHLY': '0 0 1 * *',
  '@WEEKLY': '0 0 * * 0',
  '@DAILY': '0 0 * * *',
  '@MIDNIGHT': '0 0 * * *',
  '@HOURLY': '0 * * * *',
};

/**
 * The cron as the service keeps it: 5 fields, upper case, one space apart, `?` replaced by `*`; a
 * macro (`@daily`) is kept as its 5 fields. Anything croner cannot parse, that never fires, or that
 * EventBridge cannot express is a 400 naming `cron`.
 */
export function normalizeCron(text: string): string {
  const upper = text.trim().toUpperCase();
  if (upper.startsWith('@') && cronMacros[upper] === undefined) {
    throw cronError(
      `cron: unknown macro "${text.trim()}"; use one of ${Object.keys(cronMacros).join(', ').toLowerCase()}, or 5 fields (minute hour day-of-month month day-of-week)`,
    );
  }
  const fields = (cronMacros[upper] ?? upper).split(/\s+/);
  if (fields.length !== 5) {
    throw cronError(
      `cron must have 5 fields (minute hour day-of-month month day-of-week) or be a macro such as @daily; "${text.trim()}" has ${fields.length}`,
    );
  }
  fields.forEach((field, index) => {
    // croner reads `?` as "the time of starting", which is nothing a stored schedule could mean.
    if (field === '?' && (index === 2 || index === 4)) fields[index] = '*';
    else if (field.includes('?')) throw cronError(`cron: "?" is allowed only as a whole day field`);
  });
  const cron = fields.join(' ');
  let parsed: Cron;
  try {
    parsed = cronOf(cron, 'UTC');
  } catch (error) {
    throw cronError(`Invalid cron "${cron}": ${(error as Error).message.replace(/^CronPattern: /, '')}`);
  }
  if (parsed.nextRun(new Date()) === null) throw cronError(`cron "${cron}" never fires`);
  const expression = eventBridgeCron(cron);
  if (expression.length > maxExpressionLength) {
    throw cronError(`cron "${cron}" is too long for EventBridge Scheduler once written out; simplify it`);
  }
  return cron;
}

/** The canonical IANA name of a time zone; an unknown one is a 400 naming `timezone`. */
export function canonicalTimezone(name: string): string {
  const unknown = () => {
    const message = `Unknown time zone "${name}": give an IANA name such as Europe/Berlin or UTC`;
    return new ValidationError(message, [{ path: 'timezone', message }]);
  };
  // Offsets ("+02:00") and other non-names are refused even where the platform would take them.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) throw unknown();
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw unknown();
  }
}

function cronOf(cron: string, timezone: string): Cron {
  const { Cron } = loadCroner();
  return new Cron(cron, {
    timezone,
    mode: '5-part',
    // Standard cron reads restricted day-of-month and day-of-week as either; both are never restricted here.
    domAndDow: false,
    // Vixie cron's rule: a job with fixed hours and minutes fires once across a DST change.
    fixedTimeRule: 'no-wildcard',
    paused: true,
  });
}

/** The first fire strictly after `after`, or null when there is none. */
export function nextFireAfter(timing: Timing, after: Date): Date | null {
  if (timing.kind === 'rate') {
    const step = timing.rateMinutes * 60_000;
    const elapsed = after.getTime() - timing.anchor.getTime();
    const count = Math.max(1, Math.floor(elapsed / step) + 1);
    return new Date(timing.anchor.getTime() + count * step);
  }
  return cronOf(timing.cron, timing.timezone).nextRun(after);
}

/** The next `count` fires strictly after `after`. */
export function nextFiresAfter(timing: Timing, after: Date, count: number): Date[] {
  const fires: Date[] = [];
  let from = after;
  for (let index = 0; index < count; index += 1) {
    const next = nextFireAfter(timing, from);
    if (!next) break;
    fires.push(next);
    from = next;
  }
  return fires;
}

/** The last fire at or before `at`, or null when there was none. */
export function latestFireAtOrBefore(timing: Timing, at: Date): Date | null {
  if (timing.kind === 'rate') {
    const step = timing.rateMinutes * 60_000;
    const count = Math.floor((at.getTime() - timing.anchor.getTime()) / step);
    return count >= 1 ? new Date(timing.anchor.getTime() + count * step) : null;
  }
  // croner counts a run in the same second as the reference but not one exactly at it.
  return cronOf(timing.cron, timing.timezone).previousRuns(1, new Date(at.getTime() + 1))[0] ?? null;
}

/** A rate counts from the minute its schedule was last put, so fires fall on whole minutes. */
export function timingOf(schedule: {
  cron?: string;
  rateMinutes?: number;
  timezone: string;
  updatedAt: string;
}): Timing {
  if (schedule.cron !== undefined) return { kind: 'cron', cron: schedule.cron, timezone: schedule.timezone };
  if (schedule.rateMinutes === undefined) throw new Error('A schedule has neither a cron nor a rate');
  const anchor = Math.floor(Date.parse(schedule.updatedAt) / 60_000) * 60_000;
  return { kind: 'rate', rateMinutes: schedule.rateMinutes, anchor: new Date(anchor) };
}

export interface EventBridgeExpression {
  expression: string;
  timezone: string;
  /**
   * For a rate: its next fire, as EventBridge's StartDate, so that AWS fires on the same minutes
   * as the local schedule firer and `nextRunAt` say (without one, EventBridge starts at once).
   */
  startDate?: Date;
}

export function eventBridgeExpression(
  schedule: { cron?: string; rateMinutes?: number; timezone: string; updatedAt: string },
  now: Date,
): EventBridgeExpression {
  const timing = timingOf(schedule);
  if (timing.kind === 'cron')
    return { expression: eventBridgeCron(timing.cron), timezone: schedule.timezone };
  const unit = timing.rateMinutes === 1 ? 'minute' : 'minutes';
  return {
    expression: `rate(${timing.rateMinutes} ${unit})`,
    timezone: schedule.timezone,
    startDate: nextFireAfter(timing, now) ?? undefined,
  };
}

/**
 * `cron(min hour dom month dow year)`: exactly one day field is `?`, day-of-week counts 1-7 from
 * Sunday, steps start from a number (`0/15`), and stepped ranges are written out as lists.
 */
export function eventBridgeCron(cron: string): string {
  const [minute, hour, dayOfMonth, month, dayOfWeek] = cron.split(' ');
  const domRestricted = dayOfMonth !== '*';
  const dowRestricted = dayOfWeek !== '*';
  if (domRestricted && dowRestricted) {
    throw cronError(
      `cron "${cron}" restricts both the day of month and the day of week, which EventBridge Scheduler cannot express; restrict one of them and leave the other *`,
    );
  }
  const fields = [
    awsField(minute, 0, 59),
    awsField(hour, 0, 23),
    dowRestricted ? '?' : awsField(dayOfMonth, 1, 31),
    awsField(month, 1, 12, monthNumbers),
    dowRestricted ? awsDayOfWeek(dayOfWeek) : '?',
    '*',
  ];
  return `cron(${fields.join(' ')})`;
}

const monthNumbers: Record<string, number> = Object.fromEntries(
  ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'].map((name, index) => [
    name,
    index + 1,
  ]),
);
const dayNumbers: Record<string, number> = Object.fromEntries(
  ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'].map((name, index) => [name, index]),
);

function numberOf(token: string, names: Record<string, number> = {}): number {
  const value = token in names ? names[token] : Number(token);
  if (!Number.isInteger(value)) throw cronError(`cron: "${token}" is not a number`);
  return value;
}

/** Minute, hour, day of month or month, item by item. */
function awsField(field: string, min: number, max: number, names?: Record<string, number>): string {
  return field
    .split(',')
    .map((item) => {
      const stepped = /^(.+)\/(\d+)$/.exec(item);
      if (!stepped) return item;
      const [, base, step] = stepped;
      if (base === '*') return `${min}/${step}`;
      const range = /^([^-]+)-([^-]+)$/.exec(base);
      if (!range) return item;
      const values: number[] = [];
      for (let value = numberOf(range[1], names); value <= numberOf(range[2], names); value += Number(step))
        values.push(value);
      return values.filter((value) => value >= min && value <= max).join(',');
    })
    .join(',');
}

/** Standard 0-7 (0 and 7 Sunday) to EventBridge's 1-7 from Sunday. */
const awsDay = (day: number) => (day % 7) + 1;

function awsDayOfWeek(field: string): string {
  const days = new Set<number>();
  const special: string[] = [];
  for (const item of field.split(',')) {
    const nth = /^([A-Z0-9]+)#(\d|L)$/.exec(item);
    if (nth) {
      const day = awsDay(numberOf(nth[1], dayNumbers));
      special.push(nth[2] === 'L' ? `${day}L` : `${day}#${nth[2]}`);
      continue;
    }
    const last = /^([A-Z0-9]+)L$/.exec(item);
    if (last) {
      special.push(`${awsDay(numberOf(last[1], dayNumbers))}L`);
      continue;
    }
    const stepped = /^(.+?)(?:\/(\d+))?$/.exec(item) as RegExpExecArray;
    const [, base, stepText] = stepped;
    const step = stepText === undefined ? 1 : Number(stepText);
    const range = base === '*' ? ['0', '6'] : base.split('-');
    const from = numberOf(range[0], dayNumbers);
    const to = range.length === 2 ? numberOf(range[1], dayNumbers) : stepText === undefined ? from : 6;
    for (let day = from; day <= to; day += step) days.add(awsDay(day));
  }
  return [compactList([...days].sort((a, b) => a - b)), ...special].filter(Boolean).join(',');
}

/** `1,2,3,5` → `1-3,5`. */
function compactList(values: number[]): string {
  const parts: string[] = [];
  for (let start = 0; start < values.length; ) {
    let end = start;
    while (end + 1 < values.length && values[end + 1] === values[end] + 1) end += 1;
    parts.push(end - start >= 2 ? `${values[start]}-${values[end]}` : values.slice(start, end + 1).join(','));
    start = end + 1;
  }
  return parts.join(',');
}
