/**
 * The definitions of the settings an operator gives the service through environment variables:
 * what each accepts and its default. The settings modules of each deployable (functions/settings/,
 * local/settings.ts) read them from the environment with these definitions, once, when the process
 * starts, and bundle mode passes exactly these on to the functions. What each means is in
 * ./settings-docs.ts, kept out of the Lambda bundles (a notification route's is within a few KB of
 * its 768 KB limit), from which `npm run docs:settings` makes docs/operating.md's tables.
 *
 * Adding a setting: one line in `functionSettings` (or `localServerSettings`), its line in
 * ./settings-docs.ts (the type checker asks for it), then `npm run docs:settings`.
 */
import { defaultStepBudgetInMs } from './function-defaults';
import { logRetention } from './resources';
import * as z from './zod';

/** The function families the CDK app deploys: each checks its own settings at its cold start. */
export type FunctionFamily = 'routes' | 'workers' | 'tasks';

export interface SettingDefinition<Value> {
  /** Checks the variable's text and turns it into the value. */
  schema: z.ZodMiniType<Value, string>;
  /** The value when the variable is unset or empty. */
  defaultValue: Value;
  /** What the variable must hold, for the message that refuses it: "must be …". */
  expected: string;
  /** The function families that read it (checked at their cold start); empty for the local server. */
  families: readonly FunctionFamily[];
}

export type SettingDefinitions = Record<string, SettingDefinition<unknown>>;

/** The values of a set of definitions, by variable name. */
export type SettingValues<Definitions extends SettingDefinitions> = {
  [Name in keyof Definitions]: Definitions[Name]['defaultValue'] | z.output<Definitions[Name]['schema']>;
};

/** A setting the process cannot work with: names the variable and what it must hold. */
export class SettingsError extends Error {
  readonly status = 500;
  readonly variables: string[];
  constructor(problems: { name: string; message: string }[], options?: { cause?: unknown }) {
    super(problems.map((problem) => problem.message).join('; '), options);
    this.name = 'SettingsError';
    this.variables = problems.map((problem) => problem.name);
  }
}

interface NumberBounds {
  /** Smallest value allowed. */
  min?: number;
  /** Values must be greater than this. */
  above?: number;
  max?: number;
  whole?: boolean;
}

/** What a number setting accepts, and how the message that refuses a value says it. */
interface NumberKind extends NumberBounds {
  expected: string;
}

function numberSchema(bounds: NumberBounds): z.ZodMiniType<number, string> {
  const checks = [
    ...(bounds.whole ? [z.int()] : []),
    ...(bounds.min !== undefined ? [z.gte(bounds.min)] : []),
    ...(bounds.above !== undefined ? [z.gt(bounds.above)] : []),
    ...(bounds.max !== undefined ? [z.lte(bounds.max)] : []),
  ];
  // Number('') is 0, but empty never gets here (it means unset); z.number() refuses NaN and Infinity.
  return z.coerce.number().check(...checks) as unknown as z.ZodMiniType<number, string>;
}

/** A number setting; with no default, its reader decides what unset means. */
function numberSetting<Default extends number | undefined>(
  kind: NumberKind,
  defaultValue: Default,
  families: readonly FunctionFamily[] = allFamilies,
): SettingDefinition<number | Default> {
  return { schema: numberSchema(kind), defaultValue, expected: kind.expected, families };
}

/** A text setting, taken as it is (its reader checks what it holds). */
function textSetting<Default extends string | undefined>(
  defaultValue: Default,
  families: readonly FunctionFamily[] = allFamilies,
): SettingDefinition<string | Default> {
  return { schema: z.string(), defaultValue, expected: 'text', families };
}

/** An http(s) address. */
function httpUrlSetting(
  families: readonly FunctionFamily[] = allFamilies,
): SettingDefinition<string | undefined> {
  return {
    schema: z.url({ protocol: /^https?$/ }),
    defaultValue: undefined,
    expected: 'an http(s) URL',
    families,
  };
}

/** One of a few words. */
function choiceSetting<const Choice extends string>(
  choices: readonly [Choice, ...Choice[]],
  defaultValue: Choice,
  families: readonly FunctionFamily[],
): SettingDefinition<Choice> {
  return {
    schema: z.enum(choices) as unknown as z.ZodMiniType<Choice, string>,
    defaultValue,
    expected: choices
      .map((choice) => `"${choice}"${choice === defaultValue ? ' (the default)' : ''}`)
      .join(' or '),
    families,
  };
}

const allFamilies: readonly FunctionFamily[] = ['routes', 'workers', 'tasks'];
const numbers = {
  usd: { min: 0, expected: 'a number of USD, zero or more' },
  positiveMs: { above: 0, expected: 'a number of milliseconds greater than 0' },
  positiveDays: { above: 0, expected: 'a positive number of days' },
  wholeDays: { min: 1, whole: true, expected: 'a whole number of days, 1 or more' },
  ms: { min: 0, expected: 'a number of milliseconds, 0 or more' },
  presignSeconds: {
    min: 1,
    max: 604_800,
    whole: true,
    expected: 'a whole number of seconds from 1 to 604800',
  },
  wholeMs: { min: 1, whole: true, expected: 'a whole number of milliseconds, 1 or more' },
  bytes: { min: 1, whole: true, expected: 'a whole number of bytes, 1 or more' },
  count: { min: 1, whole: true, expected: 'a whole number, 1 or more' },
  leaseTokens: { min: 0, max: 100, whole: true, expected: 'a whole number from 0 to 100' },
  port: { min: 0, max: 65_535, whole: true, expected: 'a port number from 0 to 65535' },
} satisfies Record<string, NumberKind>;
/** Settings of runs, read by the routes that run them (sync and streamed) and the Step task. */
const routesAndTasks: readonly FunctionFamily[] = ['routes', 'tasks'];

/**
 * Settings of the service anywhere: the functions read them in AWS (a deployment adds them to its
 * functions' configuration; the CDK app sets none of them), the local server gives them to the
 * handlers it runs. One line each.
 */
export const functionSettings = {
  BASE_CHARGE_PER_RUN_USD: numberSetting(numbers.usd, 0.001),
  MODEL_PRICES_JSON: textSetting(undefined, routesAndTasks),
  OPENAI_BASE_URL: httpUrlSetting(routesAndTasks),
  ANTHROPIC_BASE_URL: httpUrlSetting(routesAndTasks),
  STEP_BUDGET_MS: numberSetting(numbers.positiveMs, defaultStepBudgetInMs, routesAndTasks),
  SYNC_BUDGET_MS: numberSetting(numbers.positiveMs, 27_000, routesAndTasks),
  STREAM_BUDGET_MS: numberSetting(numbers.positiveMs, undefined, ['routes']),
  JOB_RETENTION_DAYS: numberSetting(numbers.positiveDays, undefined),
  LOG_RETENTION_DAYS: numberSetting(numbers.wholeDays, logRetention.defaultInDays),
  LOG_SETTLE_MS: numberSetting(numbers.ms, 5_000, ['routes']),
  FILE_URL_EXPIRY_SECONDS: numberSetting(numbers.presignSeconds, 3600),
  OUTBOUND_ALLOWLIST: textSetting(undefined),
  PUBLIC_BASE_URL: textSetting(undefined),
  EMAIL_FROM: textSetting('Workflow service <notifications@workflow-service.invalid>'),
  SMTP_URL: textSetting(undefined),
  SLACK_API_URL: textSetting(undefined),
  FUNCTION_MAX_TIMEOUT_MS: numberSetting(numbers.wholeMs, undefined, routesAndTasks),
  MAX_BLOCK_OUTPUT_BYTES: numberSetting(numbers.bytes, undefined, routesAndTasks),
  MAX_RUN_OUTPUT_BYTES: numberSetting(numbers.bytes, undefined, routesAndTasks),
  SANDBOX_WORKERS: numberSetting(numbers.count, undefined, routesAndTasks),
  SANDBOX_WORKERS_PER_WORKSPACE: numberSetting(numbers.count, undefined, routesAndTasks),
  LOOKUP_CACHE_TTL_MS: numberSetting(numbers.ms, 10_000),
  RATE_LIMITS_JSON: textSetting(undefined),
  USAGE_LIMITS_JSON: textSetting(undefined),
  RATE_LIMIT_LEASE_TOKENS: numberSetting(numbers.leaseTokens, 16),
  OIDC_ISSUER: textSetting(undefined, ['routes']),
  OIDC_AUDIENCE: textSetting(undefined, ['routes']),
  POWERTOOLS_LOG_LEVEL: textSetting(undefined),
} satisfies SettingDefinitions;

/** Settings of `npm start` only (the local server); no function reads them. */
export const localServerSettings = {
  PORT: numberSetting(numbers.port, 3000, []),
  HOST: textSetting('127.0.0.1', []),
  DATA_DIR: textSetting('.data', []),
  ADMIN_API_KEY: textSetting(undefined, []),
  ENVIRONMENT_KEY_FILE: textSetting(undefined, []),
  LOCAL_HANDLERS: choiceSetting(['sources', 'bundles'], 'sources', []),
  SERVER_BUILD_DIR: textSetting('dist/server', []),
} satisfies SettingDefinitions;

export type FunctionSettingName = keyof typeof functionSettings;
export type LocalServerSettingName = keyof typeof localServerSettings;

/** Reads one setting from its variable's text: unset or empty gives the default. */
export function parseSetting(
  name: string,
  definition: SettingDefinition<unknown>,
  raw: string | undefined,
): unknown {
  if (raw === undefined || raw === '') return definition.defaultValue;
  const parsed = z.safeParse(definition.schema, raw.trim());
  if (parsed.success) return parsed.data;
  throw new SettingsError([{ name, message: settingProblem(name, definition, raw) }], {
    cause: parsed.error,
  });
}

function settingProblem(name: string, definition: SettingDefinition<unknown>, raw: string): string {
  return `${name} must be ${definition.expected}, not ${JSON.stringify(raw.slice(0, 80))}`;
}

/** Reads every setting of `definitions` from `environment`, naming every variable that is wrong at once. */
export function parseSettings<Definitions extends SettingDefinitions>(
  definitions: Definitions,
  environment: Readonly<Record<string, string | undefined>>,
): SettingValues<Definitions> {
  const values: Record<string, unknown> = {};
  const problems: { name: string; message: string }[] = [];
  for (const [name, definition] of Object.entries(definitions)) {
    try {
      values[name] = parseSetting(name, definition, environment[name]);
    } catch (error) {
      if (!(error instanceof SettingsError)) throw error;
      problems.push({ name, message: error.message });
    }
  }
  if (problems.length > 0) throw new SettingsError(problems);
  return values as SettingValues<Definitions>;
}

/** The function settings that a family reads, so that its cold start checks them. */
export function functionSettingsOf(family: FunctionFamily): Partial<typeof functionSettings> {
  return Object.fromEntries(
    Object.entries(functionSettings).filter(([, definition]) =>
      (definition.families as readonly FunctionFamily[]).includes(family),
    ),
  );
}
