/**
 * What each setting means, and docs/operating.md's tables of settings made from it and from the
 * definitions (./settings.ts), between marker comments: `npm run docs:settings` writes them, a unit
 * test fails while they differ. Apart from the definitions so that no Lambda bundle carries the text.
 */
import {
  type FunctionSettingName,
  functionSettings,
  type LocalServerSettingName,
  localServerSettings,
  type SettingDefinitions,
} from './settings';

/** docs/operating.md's tables of settings, each between marker comments of its name. */
export const settingsTableNames = ['local-server', 'runs', 'limits', 'sso'] as const;
export type SettingsTable = (typeof settingsTableNames)[number];

interface SettingDoc {
  table: SettingsTable;
  /** The default as the table shows it; without it, the definition's default value. */
  defaultText?: string;
  meaning: string;
}

/** One line a setting; the type checker asks for the line of a setting added to ./settings.ts. */
export const settingDocs: Record<FunctionSettingName | LocalServerSettingName, SettingDoc> = {
  PORT: { table: 'local-server', meaning: 'port of the HTTP API' },
  HOST: { table: 'local-server', defaultText: '127.0.0.1', meaning: 'address to listen on' },
  DATA_DIR: { table: 'local-server', meaning: 'where everything is kept (below)' },
  ADMIN_API_KEY: {
    table: 'local-server',
    defaultText: 'generated, kept in the data dir',
    meaning: 'the `x-admin-key` of the admin routes',
  },
  ENVIRONMENT_KEY_FILE: {
    table: 'local-server',
    defaultText: '`DATA_DIR/secrets.key`',
    meaning: 'the key that encrypts workspace secrets (see "Local secrets")',
  },
  LOCAL_HANDLERS: {
    table: 'local-server',
    meaning:
      'what serves the routes, workers and tasks: the handler modules of the sources, or the Lambda artifacts (see "Bundle mode")',
  },
  SERVER_BUILD_DIR: {
    table: 'local-server',
    meaning: 'where `npm start` compiles the server to and runs it from',
  },
  BASE_CHARGE_PER_RUN_USD: { table: 'runs', meaning: 'charged to every run on top of model costs' },
  MODEL_PRICES_JSON: {
    table: 'runs',
    meaning: 'extra or overriding model prices: `{"<model>": {"inputPerMillion": 1, "outputPerMillion": 2}}`',
  },
  OPENAI_BASE_URL: {
    table: 'runs',
    defaultText: '`https://api.openai.com/v1`',
    meaning:
      "where agent and router blocks of provider `openai` call the model when the block sets no `baseUrl` of its own: a company's model gateway or an OpenAI-compatible server (it is then sent `max_tokens`). In AWS give it at deploy time, `npx cdk deploy --all -c openaiBaseUrl=https://gateway.example.com/v1`, and it is set on every function that runs blocks. Called without the outbound guard (it is the operator's, and may be private)",
  },
  ANTHROPIC_BASE_URL: {
    table: 'runs',
    defaultText: '`https://api.anthropic.com`',
    meaning:
      'the same for provider `anthropic` (CDK context `anthropicBaseUrl`). A value that is no http(s) URL stops the start (locally) or the synth (CDK), naming the setting',
  },
  STEP_BUDGET_MS: {
    table: 'runs',
    meaning:
      'how long one step of a run runs blocks before it checkpoints; in AWS keep it at least 30 s under the Step function\'s 210 s time-out (see "Time limits of a run\'s steps")',
  },
  SYNC_BUDGET_MS: {
    table: 'runs',
    meaning: 'how long a sync run may take in all; past it the run ends with 408 (docs/runs.md)',
  },
  STREAM_BUDGET_MS: {
    table: 'runs',
    defaultText: '885000',
    meaning:
      "how long a streamed run may take; past it the stream ends with an error (default: the execute route's time-out less 15 s)",
  },
  JOB_RETENTION_DAYS: {
    table: 'runs',
    defaultText: '7',
    meaning: 'how long an async job can be read after it was accepted (at most `LOG_RETENTION_DAYS`)',
  },
  LOG_RETENTION_DAYS: {
    table: 'runs',
    meaning:
      'how long execution-log entries are kept (DynamoDB TTL; in AWS the bucket expires their large parts a day later, 31 days as deployed)',
  },
  LOG_SETTLE_MS: {
    table: 'runs',
    meaning:
      'how far behind now ascending log reads stop, so pollers never pass an entry still being written (docs/logs.md)',
  },
  FILE_URL_EXPIRY_SECONDS: {
    table: 'runs',
    meaning: 'how long presigned file URLs (downloads and uploads) stay valid, 1 to 604800 (docs/files.md)',
  },
  OUTBOUND_ALLOWLIST: {
    table: 'runs',
    meaning:
      'hosts, IP addresses and CIDR ranges, each with an optional `:port`, comma-separated, that outbound HTTP (blocks, file URLs, notifications) may reach although they are private: `hooks.intranet, 10.20.0.0/16, 127.0.0.1:4000, [::1]:4000`. Cloud metadata addresses are never reachable',
  },
  PUBLIC_BASE_URL: {
    table: 'runs',
    defaultText: "the request's host",
    meaning:
      "the service's public address (a custom domain): the `url` of webhook triggers, and what makes links in e-mail and chat absolute",
  },
  EMAIL_FROM: { table: 'runs', meaning: 'sender of notification e-mail; in AWS an SES-verified identity' },
  SMTP_URL: {
    table: 'runs',
    meaning: 'send notification e-mail through this SMTP server instead of SES (or, locally, the outbox)',
  },
  SLACK_API_URL: {
    table: 'runs',
    defaultText: '`https://slack.com/api`',
    meaning: 'where `chat.postMessage` is called for token-based chat subscriptions',
  },
  FUNCTION_MAX_TIMEOUT_MS: {
    table: 'runs',
    defaultText: '60000',
    meaning: "ceiling of a function block's `timeoutMs` (never beyond `STEP_BUDGET_MS`)",
  },
  MAX_BLOCK_OUTPUT_BYTES: {
    table: 'runs',
    defaultText: '5242880 (5 MB)',
    meaning: 'largest output of one block, as JSON',
  },
  MAX_RUN_OUTPUT_BYTES: {
    table: 'runs',
    defaultText: '5242880 (5 MB)',
    meaning: 'largest output of a run, as JSON',
  },
  SANDBOX_WORKERS: {
    table: 'runs',
    defaultText: "the machine's cores, at least 2",
    meaning: 'worker threads that run function blocks and conditions',
  },
  SANDBOX_WORKERS_PER_WORKSPACE: {
    table: 'runs',
    defaultText: 'half of `SANDBOX_WORKERS`, rounded up',
    meaning:
      "workers one workspace's function blocks and conditions may hold at once (see the sandbox pool below)",
  },
  LOOKUP_CACHE_TTL_MS: {
    table: 'runs',
    meaning:
      "how long a warm function (or the local server) keeps an API key, a workspace membership, a workflow record and (Finalize, the notifications worker) a workspace's subscriptions it has read; 0 keeps nothing. A change made through the same process is seen at once; one made through another instance (a key revoked, a member removed, a workflow deployed, a subscription created or deleted) within this bound, as with API Gateway's authorizer cache",
  },
  RATE_LIMITS_JSON: {
    table: 'limits',
    meaning:
      'overriding buckets per plan, of failed authentications, and of form access attempts (`formSources`, `formFailures`), and each plan\'s cap on a workspace\'s runs in progress (`runsInProgress`, 1 to 5,000; [limits.md](limits.md#runs-in-progress)): `{"free": {"sync": {"requestsPerMinute": 600, "maxBurst": 1200}, "runsInProgress": 10}, "authFailures": {"requestsPerMinute": 5, "maxBurst": 5}}`',
  },
  USAGE_LIMITS_JSON: {
    table: 'limits',
    meaning: 'overriding usage limits per plan, in USD a month: `{"free": 25}`',
  },
  RATE_LIMIT_LEASE_TOKENS: {
    table: 'limits',
    meaning:
      'the most tokens of one bucket a process takes ahead for a key it serves many times a second ([docs/limits.md](limits.md#tokens-taken-ahead-token-leases)), 0 to 100; 0 makes every request take its own token with a write of its own',
  },
  OIDC_ISSUER: {
    table: 'sso',
    meaning:
      "the OpenID Connect provider's issuer, exactly as in its tokens' `iss`; its discovery document and keys are read from there (https, or http on a loopback address)",
  },
  OIDC_AUDIENCE: {
    table: 'sso',
    meaning: "the client id the provider issues this service's tokens to (`aud`)",
  },
  POWERTOOLS_LOG_LEVEL: {
    table: 'runs',
    defaultText: '`INFO` (`npm start`: `WARN`)',
    meaning:
      "the least level of the functions' log lines (Powertools: `DEBUG`, `INFO`, `WARN`, `ERROR`, `SILENT`)",
  },
};

function defaultTextOf(
  name: FunctionSettingName | LocalServerSettingName,
  definitions: SettingDefinitions,
): string {
  const explicit = settingDocs[name].defaultText;
  if (explicit !== undefined) return explicit;
  const value = definitions[name].defaultValue;
  if (value === undefined) return '';
  return typeof value === 'number' ? String(value) : `\`${value}\``;
}

function tableOf(table: SettingsTable): string {
  const definitions: SettingDefinitions = { ...localServerSettings, ...functionSettings };
  const rows = (Object.keys(definitions) as (FunctionSettingName | LocalServerSettingName)[])
    .filter((name) => settingDocs[name].table === table)
    .map((name) => `| \`${name}\` | ${defaultTextOf(name, definitions)} | ${settingDocs[name].meaning} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

export class SettingsMarkerError extends Error {
  readonly status = 500;
  constructor(marker: string) {
    super(`docs/operating.md has no ${marker} marker comment, where the settings table goes`);
    this.name = 'SettingsMarkerError';
  }
}

const startOf = (name: string) => `<!-- settings:${name}:start (npm run docs:settings writes this table) -->`;
const endOf = (name: string) => `<!-- settings:${name}:end -->`;

/** The page with every settings table written anew between its markers. */
export function withSettingsTables(markdown: string): string {
  let page = markdown;
  for (const name of settingsTableNames) {
    const start = page.indexOf(startOf(name));
    if (start < 0) throw new SettingsMarkerError(startOf(name));
    const end = page.indexOf(endOf(name), start);
    if (end < 0) throw new SettingsMarkerError(endOf(name));
    page = `${page.slice(0, start)}${startOf(name)}\n${tableOf(name)}\n${page.slice(end)}`;
  }
  return page;
}
