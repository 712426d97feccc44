/**
 * The definitions of the settings an operator gives the service through environment variables:
 * what each accepts, its default and what it means. The settings modules of each deployable
 * (functions/settings/, local/settings.ts) read them from the environment with these definitions,
 * once, when the process starts; docs/operating.md's tables are made from them
 * (`npm run docs:settings`), and bundle mode passes exactly these on to the functions.
 *
 * Adding a setting is one line in `functionSettings` (or `localServerSettings`), then
 * `npm run docs:settings`.
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
  /** The default as docs/operating.md shows it (empty: none). */
  defaultText: string;
  /** What the variable must hold, for the message that refuses it: "must be …". */
  expected: string;
  /** docs/operating.md's "meaning" column. */
  meaning: string;
  /** The function families that read it (checked at their cold start); empty for the local server. */
  families: readonly FunctionFamily[];
  /** The table of docs/operating.md that lists it. */
  table: SettingsTable;
}

/** docs/operating.md's tables of settings, each between marker comments of its name. */
export const settingsTableNames = ['local-server', 'runs', 'limits', 'sso'] as const;
export type SettingsTable = (typeof settingsTableNames)[number];

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
  return z.pipe(z.string(), z.pipe(z.transform(Number), z.number().check(...checks)));
}

interface Described {
  meaning: string;
  /** Default: every family. */
  families?: readonly FunctionFamily[];
  /** Default: `runs`. */
  table?: SettingsTable;
}

/** A number setting with a default. */
function numberSetting(
  kind: NumberKind,
  defaultValue: number,
  described: Described & { defaultText?: string },
): SettingDefinition<number>;
/** A number setting with no default: the reader decides what unset means. */
function numberSetting(
  kind: NumberKind,
  defaultValue: undefined,
  described: Described & { defaultText: string },
): SettingDefinition<number | undefined>;
function numberSetting(
  kind: NumberKind,
  defaultValue: number | undefined,
  described: Described & { defaultText?: string },
): SettingDefinition<number | undefined> {
  return {
    schema: numberSchema(kind),
    defaultValue,
    defaultText: described.defaultText ?? String(defaultValue),
    expected: kind.expected,
    meaning: described.meaning,
    families: described.families ?? allFamilies,
    table: described.table ?? 'runs',
  };
}

/** A text setting, taken as it is (its reader checks what it holds). */
function textSetting(
  defaultValue: string,
  described: Described & { defaultText?: string },
): SettingDefinition<string>;
function textSetting(
  defaultValue: undefined,
  described: Described & { defaultText?: string },
): SettingDefinition<string | undefined>;
function textSetting(
  defaultValue: string | undefined,
  described: Described & { defaultText?: string },
): SettingDefinition<string | undefined> {
  return {
    schema: z.string(),
    defaultValue,
    defaultText: described.defaultText ?? (defaultValue === undefined ? '' : `\`${defaultValue}\``),
    expected: 'text',
    meaning: described.meaning,
    families: described.families ?? allFamilies,
    table: described.table ?? 'runs',
  };
}

/** One of a few words. */
function choiceSetting<const Choice extends string>(
  choices: readonly [Choice, ...Choice[]],
  defaultValue: Choice,
  described: Described,
): SettingDefinition<Choice> {
  return {
    schema: z.enum(choices) as unknown as z.ZodMiniType<Choice, string>,
    defaultValue,
    defaultText: `\`${defaultValue}\``,
    expected: choices
      .map((choice) => `"${choice}"${choice === defaultValue ? ' (the default)' : ''}`)
      .join(' or '),
    meaning: described.meaning,
    families: described.families ?? allFamilies,
    table: described.table ?? 'runs',
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
 * handlers it runs. One line each; run `npm run docs:settings` after a change.
 */
export const functionSettings = {
  BASE_CHARGE_PER_RUN_USD: numberSetting(numbers.usd, 0.001, {
    meaning: 'charged to every run on top of model costs',
  }),
  MODEL_PRICES_JSON: textSetting(undefined, {
    families: routesAndTasks,
    meaning: 'extra or overriding model prices: `{"<model>": {"inputPerMillion": 1, "outputPerMillion": 2}}`',
  }),
  STEP_BUDGET_MS: numberSetting(numbers.positiveMs, defaultStepBudgetInMs, {
    families: routesAndTasks,
    meaning:
      'how long one step of a run runs blocks before it checkpoints; in AWS keep it at least 30 s under the Step function\'s 210 s time-out (see "Time limits of a run\'s steps")',
  }),
  SYNC_BUDGET_MS: numberSetting(numbers.positiveMs, 27_000, {
    families: routesAndTasks,
    meaning: 'how long a sync run may take in all; past it the run ends with 408 (docs/runs.md)',
  }),
  STREAM_BUDGET_MS: numberSetting(numbers.positiveMs, undefined, {
    families: ['routes'],
    defaultText: '885000',
    meaning:
      "how long a streamed run may take; past it the stream ends with an error (default: the execute route's time-out less 15 s)",
  }),
  JOB_RETENTION_DAYS: numberSetting(numbers.positiveDays, undefined, {
    defaultText: '7',
    meaning: 'how long an async job can be read after it was accepted (at most `LOG_RETENTION_DAYS`)',
  }),
  LOG_RETENTION_DAYS: numberSetting(numbers.wholeDays, logRetention.defaultInDays, {
    meaning:
      'how long execution-log entries are kept (DynamoDB TTL; in AWS the bucket expires their large parts a day later, 31 days as deployed)',
  }),
  LOG_SETTLE_MS: numberSetting(numbers.ms, 5_000, {
    families: ['routes'],
    meaning:
      'how far behind now ascending log reads stop, so pollers never pass an entry still being written (docs/logs.md)',
  }),
  FILE_URL_EXPIRY_SECONDS: numberSetting(numbers.presignSeconds, 3600, {
    meaning: 'how long presigned file URLs (downloads and uploads) stay valid, 1 to 604800 (docs/files.md)',
  }),
  OUTBOUND_ALLOWLIST: textSetting(undefined, {
    meaning:
      'hosts, IP addresses and CIDR ranges, each with an optional `:port`, comma-separated, that outbound HTTP (blocks, file URLs, notifications) may reach although they are private: `hooks.intranet, 10.20.0.0/16, 127.0.0.1:4000, [::1]:4000`. Cloud metadata addresses are never reachable',
  }),
  PUBLIC_BASE_URL: textSetting(undefined, {
    defaultText: "the request's host",
    meaning:
      "the service's public address (a custom domain): the `url` of webhook triggers, and what makes links in e-mail and chat absolute",
  }),
  EMAIL_FROM: textSetting('Workflow service <notifications@workflow-service.invalid>', {
    meaning: 'sender of notification e-mail; in AWS an SES-verified identity',
  }),
  SMTP_URL: textSetting(undefined, {
    meaning: 'send notification e-mail through this SMTP server instead of SES (or, locally, the outbox)',
  }),
  SLACK_API_URL: textSetting(undefined, {
    defaultText: '`https://slack.com/api`',
    meaning: 'where `chat.postMessage` is called for token-based chat subscriptions',
  }),
  FUNCTION_MAX_TIMEOUT_MS: numberSetting(numbers.wholeMs, undefined, {
    families: routesAndTasks,
    defaultText: '60000',
    meaning: "ceiling of a function block's `timeoutMs` (never beyond `STEP_BUDGET_MS`)",
  }),
  MAX_BLOCK_OUTPUT_BYTES: numberSetting(numbers.bytes, undefined, {
    families: routesAndTasks,
    defaultText: '5242880 (5 MB)',
    meaning: 'largest output of one block, as JSON',
  }),
  MAX_RUN_OUTPUT_BYTES: numberSetting(numbers.bytes, undefined, {
    families: routesAndTasks,
    defaultText: '5242880 (5 MB)',
    meaning: 'largest output of a run, as JSON',
  }),
  SANDBOX_WORKERS: numberSetting(numbers.count, undefined, {
    families: routesAndTasks,
    defaultText: "the machine's cores, at least 2",
    meaning: 'worker threads that run function blocks and conditions',
  }),
  SANDBOX_WORKERS_PER_WORKSPACE: numberSetting(numbers.count, undefined, {
    families: routesAndTasks,
    defaultText: 'half of `SANDBOX_WORKERS`, rounded up',
    meaning:
      "workers one workspace's function blocks and conditions may hold at once (see the sandbox pool below)",
  }),
  LOOKUP_CACHE_TTL_MS: numberSetting(numbers.ms, 10_000, {
    meaning:
      "how long a warm function (or the local server) keeps an API key, a workspace membership, a workflow record and (Finalize, the notifications worker) a workspace's subscriptions it has read; 0 keeps nothing. A change made through the same process is seen at once; one made through another instance (a key revoked, a member removed, a workflow deployed, a subscription created or deleted) within this bound, as with API Gateway's authorizer cache",
  }),
  RATE_LIMITS_JSON: textSetting(undefined, {
    table: 'limits',
    meaning:
      'overriding buckets per plan, of failed authentications, and of form access attempts (`formSources`, `formFailures`): `{"free": {"sync": {"requestsPerMinute": 600, "maxBurst": 1200}}, "authFailures": {"requestsPerMinute": 5, "maxBurst": 5}}`',
  }),
  USAGE_LIMITS_JSON: textSetting(undefined, {
    table: 'limits',
    meaning: 'overriding usage limits per plan, in USD a month: `{"free": 25}`',
  }),
  RATE_LIMIT_LEASE_TOKENS: numberSetting(numbers.leaseTokens, 16, {
    table: 'limits',
    meaning:
      'the most tokens of one bucket a process takes ahead for a key it serves many times a second ([docs/limits.md](limits.md#tokens-taken-ahead-token-leases)), 0 to 100; 0 makes every request take its own token with a write of its own',
  }),
  OIDC_ISSUER: textSetting(undefined, {
    families: ['routes'],
    table: 'sso',
    meaning:
      "the OpenID Connect provider's issuer, exactly as in its tokens' `iss`; its discovery document and keys are read from there (https, or http on a loopback address)",
  }),
  OIDC_AUDIENCE: textSetting(undefined, {
    families: ['routes'],
    table: 'sso',
    meaning: "the client id the provider issues this service's tokens to (`aud`)",
  }),
  POWERTOOLS_LOG_LEVEL: textSetting(undefined, {
    defaultText: '`INFO` (`npm start`: `WARN`)',
    meaning:
      "the least level of the functions' log lines (Powertools: `DEBUG`, `INFO`, `WARN`, `ERROR`, `SILENT`)",
  }),
} satisfies SettingDefinitions;

/** Where the local server's own settings are listed; no function reads them. */
const localServer = { families: [], table: 'local-server' } as const;

/** Settings of `npm start` only (the local server). */
export const localServerSettings = {
  PORT: numberSetting(numbers.port, 3000, {
    ...localServer,
    meaning: 'port of the HTTP API',
  }),
  HOST: textSetting('127.0.0.1', {
    ...localServer,
    defaultText: '127.0.0.1',
    meaning: 'address to listen on',
  }),
  DATA_DIR: textSetting('.data', {
    ...localServer,
    meaning: 'where everything is kept (below)',
  }),
  ADMIN_API_KEY: textSetting(undefined, {
    ...localServer,
    defaultText: 'generated, kept in the data dir',
    meaning: 'the `x-admin-key` of the admin routes',
  }),
  ENVIRONMENT_KEY_FILE: textSetting(undefined, {
    ...localServer,
    defaultText: '`DATA_DIR/secrets.key`',
    meaning: 'the key that encrypts workspace secrets (see "Local secrets")',
  }),
  LOCAL_HANDLERS: choiceSetting(['sources', 'bundles'], 'sources', {
    ...localServer,
    meaning:
      'what serves the routes, workers and tasks: the handler modules of the sources, or the Lambda artifacts (see "Bundle mode")',
  }),
  SERVER_BUILD_DIR: textSetting('dist/server', {
    ...localServer,
    meaning: 'where `npm start` compiles the server to and runs it from',
  }),
} satisfies SettingDefinitions;

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
