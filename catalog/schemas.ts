/** Wire schemas of the HTTP API. Routes declare them; handlers parse with them; OpenAPI is generated from them. */
import * as z from './zod';
import {
  ENVIRONMENT_NAME_PATTERN,
  environmentNameRule,
  MAX_ENVIRONMENT_NAME_LENGTH,
  MAX_ENVIRONMENT_VALUE_BYTES,
} from '../core/environment/rules';
import { triggers } from '../core/triggers';
import {
  MAX_WEBHOOK_PATH_LENGTH,
  MAX_WEBHOOK_SECRET_LENGTH,
  MIN_WEBHOOK_SECRET_LENGTH,
  WEBHOOK_PATH_PATTERN,
  webhookPathRule,
} from '../core/webhooks/rules';

export const id = z.string().check(z.minLength(1), z.maxLength(128));

const isoPattern = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or date-time (UTC unless it names an offset), as a UTC ISO timestamp. */
export const isoTimestamp = z.pipe(
  z.string().check(z.regex(isoPattern, 'Must be an ISO 8601 date or date-time, e.g. 2026-11-24T10:00:00Z')),
  z.transform((text: string, context) => {
    const zoned = /T/.test(text) && !/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? `${text}Z` : text;
    const time = Date.parse(zoned);
    if (Number.isNaN(time)) {
      context.issues.push({ code: 'custom', message: 'Not a valid date', input: text });
      return z.NEVER;
    }
    return new Date(time).toISOString();
  }),
);

export const workspacePermission = z.enum(['read', 'write', 'admin']);
export const organizationRole = z.enum(['owner', 'admin', 'member']);
export const plan = z.enum(['free', 'pro', 'team', 'enterprise']);
export const trigger = z.enum(triggers);

export const errorBody = z
  .object({
    error: z.string(),
    code: z.string(),
    details: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
  })
  .register(z.globalRegistry, { id: 'Error' });

export const block = z.object({
  id: id,
  type: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  parentId: z.optional(z.nullable(z.string())),
  enabled: z.optional(z.boolean()),
  config: z._default(z.record(z.string(), z.unknown()), {}),
});

export const edge = z.object({
  id: id,
  source: id,
  target: id,
  sourceHandle: z.optional(z.string()),
  targetHandle: z.optional(z.string()),
});

export const workflowGraph = z
  .object({
    blocks: z.record(z.string(), block),
    edges: z._default(z.array(edge), []),
    loops: z._default(z.record(z.string(), z.unknown()), {}),
    parallels: z._default(z.record(z.string(), z.unknown()), {}),
  })
  .register(z.globalRegistry, { id: 'WorkflowGraph' });

const usageLimitUsd = z.number().check(z.gte(0), z.lte(1e9));

export const user = z
  .object({
    id,
    email: z.string(),
    name: z.string(),
    plan,
    /** USD a calendar month; absent: the plan's. */
    usageLimitUsd: z.optional(usageLimitUsd),
    organizationId: z.optional(id),
    createdAt: z.string(),
  })
  .register(z.globalRegistry, { id: 'User' });

export const apiKey = z
  .object({
    id,
    name: z.string(),
    userId: id,
    /** First characters of the key, so a person can tell keys apart; the key itself is never stored. */
    prefix: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.optional(z.string()),
  })
  .register(z.globalRegistry, { id: 'ApiKey' });

export const createdApiKey = z
  .extend(apiKey, { key: z.string() })
  .register(z.globalRegistry, { id: 'CreatedApiKey' });

export const workspace = z
  .object({
    id,
    name: z.string(),
    ownerId: id,
    organizationId: z.optional(id),
    createdAt: z.string(),
    permissions: z.optional(workspacePermission),
  })
  .register(z.globalRegistry, { id: 'Workspace' });

export const workspaceMember = z
  .object({ workspaceId: id, userId: id, permissions: workspacePermission })
  .register(z.globalRegistry, { id: 'WorkspaceMember' });

export const organization = z
  .object({
    id,
    name: z.string(),
    ownerId: id,
    plan,
    usageLimitUsd: z.optional(usageLimitUsd),
    createdAt: z.string(),
  })
  .register(z.globalRegistry, { id: 'Organization' });

export const organizationMember = z
  .object({ organizationId: id, userId: id, role: organizationRole })
  .register(z.globalRegistry, { id: 'OrganizationMember' });

export const workflow = z
  .object({
    id,
    workspaceId: id,
    folderId: z.nullable(z.string()),
    name: z.string(),
    description: z.string(),
    state: workflowGraph,
    isDeployed: z.boolean(),
    deployedAt: z.optional(z.string()),
    deployedVersion: z.optional(z.number().check(z.int())),
    needsRedeployment: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .register(z.globalRegistry, { id: 'Workflow' });

export const workflowSummary = z
  .omit(workflow, { state: true })
  .register(z.globalRegistry, { id: 'WorkflowSummary' });

export const workflowStatus = z
  .object({
    isDeployed: z.boolean(),
    deployedAt: z.optional(z.string()),
    needsRedeployment: z.boolean(),
  })
  .register(z.globalRegistry, { id: 'WorkflowStatus' });

const tokenCounts = z.object({ prompt: z.number(), completion: z.number(), total: z.number() });

export const cost = z
  .object({
    total: z.number(),
    tokens: tokenCounts,
    models: z.record(
      z.string(),
      z.object({ input: z.number(), output: z.number(), total: z.number(), tokens: tokenCounts }),
    ),
  })
  .register(z.globalRegistry, {
    id: 'Cost',
    description: 'USD; the base charge per run is included in total',
  });

export const syncResult = z
  .object({
    success: z.boolean(),
    output: z.optional(z.unknown()),
    error: z.optional(z.string()),
    metadata: z.optional(
      z.looseObject({ duration: z.number(), executionId: z.string(), cost: z.optional(cost) }),
    ),
    traceSpans: z.optional(z.array(z.unknown())),
    logs: z.optional(
      z
        .array(
          z.object({
            blockId: z.string(),
            blockName: z.string(),
            blockType: z.string(),
            startedAt: z.string(),
            endedAt: z.string(),
            durationMs: z.number(),
            success: z.boolean(),
            error: z.optional(z.string()),
          }),
        )
        .register(z.globalRegistry, {
          description: 'One entry per executed block, in the order of the trace',
        }),
    ),
    totalDuration: z.optional(z.number()),
  })
  .register(z.globalRegistry, { id: 'SyncExecutionResult' });

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));

export const createUserBody = z.strictObject({
  email: z.email(),
  name,
  plan: z.optional(plan),
  usageLimitUsd: z.optional(usageLimitUsd),
});
export const updateLimitsBody = z
  .strictObject({ plan: z.optional(plan), usageLimitUsd: z.optional(z.nullable(usageLimitUsd)) })
  .check(
    z.refine((body) => Object.keys(body).length > 0, {
      message: "Nothing to update: give plan, or usageLimitUsd (null returns to the plan's)",
    }),
  );
export const createApiKeyBody = z.strictObject({
  name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
});
export const createWorkspaceAdminBody = z.strictObject({ name, ownerId: id, organizationId: z.optional(id) });
export const createWorkspaceBody = z.strictObject({ name, organizationId: z.optional(id) });
export const createOrganizationBody = z.strictObject({
  name,
  ownerId: id,
  plan: z.optional(plan),
  usageLimitUsd: z.optional(usageLimitUsd),
});
export const addOrganizationMemberBody = z.strictObject({ userId: id, role: organizationRole });
export const addWorkspaceMemberBody = z.strictObject({ userId: id, permissions: workspacePermission });
export const removeWorkspaceMemberQuery = z.object({ userId: id });

export const createWorkflowBody = z.strictObject({
  workspaceId: id,
  name,
  description: z.optional(z.string().check(z.maxLength(2000))),
  folderId: z.optional(z.nullable(z.string())),
  state: z.optional(workflowGraph),
});
export const updateWorkflowBody = z
  .strictObject({
    name: z.optional(name),
    description: z.optional(z.string().check(z.maxLength(2000))),
    folderId: z.optional(z.nullable(z.string())),
    state: z.optional(workflowGraph),
  })
  .check(
    z.refine((body) => Object.keys(body).length > 0, {
      message: 'Nothing to update: give name, description, folderId or state',
    }),
  );
export const listWorkflowsQuery = z.object({ workspaceId: id });

export const workspaceIdParams = z.object({ workspaceId: id });
export const workflowIdParams = z.object({ workflowId: id });
export const userIdParams = z.object({ userId: id });
export const organizationIdParams = z.object({ orgId: id });
export const keyIdParams = z.object({ keyId: id });

/**
 * The execute body: workflow input fields plus the control members. The one body open to any
 * member, because its members are the Start block's fields (checked against them when it runs).
 */
export const executeBody = z.catchall(
  z.object({
    stream: z.optional(z.boolean()),
    selectedOutputs: z.optional(z.array(z.string())),
  }),
  z.unknown(),
);

export const environmentVariableName = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(MAX_ENVIRONMENT_NAME_LENGTH),
    z.regex(ENVIRONMENT_NAME_PATTERN, environmentNameRule),
  );
export const environmentVariableParams = z.object({ workspaceId: id, name: environmentVariableName });
export const putEnvironmentVariableBody = z.strictObject({
  value: z.string().check(
    z.maxLength(MAX_ENVIRONMENT_VALUE_BYTES),
    z.refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_ENVIRONMENT_VALUE_BYTES, {
      message: `At most ${MAX_ENVIRONMENT_VALUE_BYTES} bytes (64 KB) of UTF-8`,
    }),
  ),
});
export const environmentVariable = z
  .object({
    name: z.string(),
    value: z.optional(z.string()).register(z.globalRegistry, {
      description: 'In clear for members with write or admin permission; absent for read members',
    }),
    updatedAt: z.string(),
    updatedBy: id,
  })
  .register(z.globalRegistry, { id: 'EnvironmentVariable' });

export const data = <T extends z.ZodMiniType>(schema: T) => z.object({ data: schema });

/**
 * Beside `data` in a workflow's save and deploy answers when the saver's permission group does not
 * allow some of its blocks (core/permissions/check.ts), or a save writes a model key out (kind
 * `literalApiKey`, core/workflows/model-keys.ts): each names the block and what is wrong.
 */
export const permissionWarnings = z.optional(
  z.array(
    z.object({
      blockId: z.string(),
      blockName: z.string(),
      blockType: z.string(),
      kind: z.string(),
      provider: z.optional(z.string()),
      message: z.string(),
    }),
  ),
);
/** `{data, warnings?}`: a workflow save or deploy answer. */
export const dataWithWarnings = <T extends z.ZodMiniType>(schema: T) =>
  z.object({ data: schema, warnings: permissionWarnings });

// Jobs (asynchronous runs)
export const jobStatusValue = z.enum(['queued', 'processing', 'completed', 'failed', 'cancelled']);
export const taskIdParams = z.object({ taskId: id });
export const asyncResult = z
  .object({
    success: z.boolean(),
    taskId: z.string(),
    status: z.literal('queued'),
    createdAt: z.string(),
    links: z.object({ status: z.string() }),
  })
  .register(z.globalRegistry, { id: 'AsyncExecutionResult' });
export const jobStatus = z
  .object({
    success: z.boolean(),
    taskId: z.string(),
    status: jobStatusValue,
    metadata: z.object({
      startedAt: z.optional(z.string()),
      completedAt: z.optional(z.string()),
      duration: z.optional(z.number()),
    }),
    output: z.optional(z.unknown()),
    error: z.optional(z.unknown()),
    estimatedDuration: z.optional(z.number()),
  })
  .register(z.globalRegistry, { id: 'JobStatus' });

// Limits
const executionRateLimit = z.object({
  isLimited: z.boolean(),
  limit: z.number(),
  remaining: z.number(),
  resetAt: z.string(),
});
export const usageLimits = z
  .object({
    success: z.boolean(),
    rateLimit: z.object({
      sync: executionRateLimit,
      async: executionRateLimit,
      authType: z.enum(['api', 'manual']),
    }),
    usage: z.object({ currentPeriodCost: z.number(), limit: z.number(), plan: z.string() }),
  })
  .register(z.globalRegistry, { id: 'UsageLimits' });

// Manual runs
export const runWorkflowBody = z.strictObject({
  input: z.optional(z.record(z.string(), z.unknown())),
  draft: z.optional(z.boolean()),
});

// Webhook triggers
export const webhookPath = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(MAX_WEBHOOK_PATH_LENGTH),
    z.regex(WEBHOOK_PATH_PATTERN, webhookPathRule),
  );
export const createWebhookBody = z.strictObject({
  path: z.optional(webhookPath),
  secret: z.optional(
    z.string().check(z.minLength(MIN_WEBHOOK_SECRET_LENGTH), z.maxLength(MAX_WEBHOOK_SECRET_LENGTH)),
  ),
});
export const webhook = z
  .object({
    id,
    workflowId: id,
    path: z.string(),
    url: z.string(),
    hasSecret: z.boolean(),
    createdAt: z.string(),
  })
  .register(z.globalRegistry, { id: 'Webhook' });
export const webhookParams = z.object({ workflowId: id, webhookId: id });
// Any text: a path no webhook can have is unknown, a 404 like any other (see resolveWebhookCall).
export const webhookTriggerParams = z.object({ path: z.string().check(z.minLength(1)) });

// Schedules
export const putScheduleBody = z
  .strictObject({
    // At least a macro (`@daily`); core/schedules/cron.ts says what else is missing.
    cron: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))),
    rateMinutes: z.optional(z.number().check(z.int(), z.gte(1), z.lte(525_600))),
    timezone: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    input: z.optional(z.record(z.string(), z.unknown())),
    enabled: z.optional(z.boolean()),
  })
  .check(
    z.refine((body) => (body.cron === undefined) !== (body.rateMinutes === undefined), {
      message: 'Give exactly one of cron and rateMinutes',
    }),
  );
export const schedule = z
  .object({
    workflowId: id,
    cron: z.optional(z.string()),
    rateMinutes: z.optional(z.number()),
    timezone: z.string(),
    input: z.record(z.string(), z.unknown()),
    enabled: z.boolean(),
    nextRunAt: z.nullable(z.string()),
    lastRunAt: z.optional(z.string()),
    /** Why the last fire started no run: input that no longer fits the Start block, a lost permission. */
    lastError: z.optional(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .register(z.globalRegistry, { id: 'Schedule' });
