/** Sim's `condition`, `wait` and `variables` blocks. */
import type { BlockMapping } from '../mapping';
import { simReferenceName } from '../references';
import { arrayValue, isRecord, numberValue, subText, subValue } from '../sim-values';

/**
 * `[{id, title: 'if' | 'else if' | 'else', value}]`, a list or its JSON text; an `else` is our
 * expression `else`, and an empty `if` never holds in Sim, so it is `false` here.
 */
export const conditionMapping: BlockMapping = {
  type: 'condition',
  config(context) {
    const rows = arrayValue(subValue(context.sim, 'conditions'));
    if (!rows || rows.length === 0) {
      context.refuse('it has no conditions');
      return { conditions: [] };
    }
    const conditions = rows.filter(isRecord).map((row) => {
      const title = typeof row.title === 'string' ? row.title.trim().toLowerCase() : '';
      const value = typeof row.value === 'string' ? row.value.trim() : '';
      return {
        id: String(row.id ?? ''),
        expression: title === 'else' ? 'else' : value === '' ? 'false' : value,
      };
    });
    return { conditions };
  },
};

const unitInMs: Record<string, number> = {
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
};

/** Sim's own limits: five minutes held in the run, thirty days when the wait is async. */
const simInProcessLimitInMs = 5 * 60_000;
const simAsyncLimitInMs = 30 * 86_400_000;

export const waitMapping: BlockMapping = {
  type: 'wait',
  config(context) {
    const { sim } = context;
    const isAsync = subValue(sim, 'async') === true || subValue(sim, 'async') === 'true';
    const unit =
      (isAsync ? subText(sim, 'timeUnitLong') : subText(sim, 'timeUnit')) ??
      (isAsync ? 'minutes' : 'seconds');
    const amount = numberValue(subValue(sim, 'timeValue') ?? '10');
    if (amount === undefined || amount < 0 || unitInMs[unit] === undefined) {
      context.refuse(`its wait of ${JSON.stringify(subValue(sim, 'timeValue'))} ${unit} is not a duration`);
      return { durationMs: 0 };
    }
    const durationMs = Math.round(amount * unitInMs[unit]);
    if (durationMs > (isAsync ? simAsyncLimitInMs : simInProcessLimitInMs)) {
      context.refuse(`its wait of ${amount} ${unit} is longer than Sim itself allows`);
    }
    return { durationMs };
  },
};

/** A value as Sim's variables block reads it for its type: numbers, booleans and JSON from text. */
export function typedVariableValue(value: unknown, type: string): unknown {
  if (typeof value !== 'string' || /^\s*(<[^>]+>|\{\{[^}]+\}\})\s*$/.test(value)) return value;
  if (type === 'number') {
    const number = numberValue(value);
    return number ?? value;
  }
  if (type === 'boolean') {
    const text = value.trim().toLowerCase();
    return text === 'true' ? true : text === 'false' ? false : value;
  }
  if (type === 'object' || type === 'array') {
    if (value.trim() === '') return type === 'array' ? [] : {};
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

/** `[{variableName, type, value}]` → our assignments, named as `<variable.name>` writes them in Sim. */
export const variablesMapping: BlockMapping = {
  type: 'variables',
  config(context) {
    const rows = arrayValue(subValue(context.sim, 'variables')) ?? [];
    const assignments = rows
      .filter(isRecord)
      .filter((row) => typeof row.variableName === 'string' && row.variableName.trim() !== '')
      .map((row) => ({
        name: simReferenceName(String(row.variableName)),
        value: typedVariableValue(row.value, typeof row.type === 'string' ? row.type : 'plain'),
      }));
    return { assignments };
  },
};
