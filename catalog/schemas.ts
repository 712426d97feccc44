/** Wire schemas of the HTTP API. Routes declare them; handlers parse with them; OpenAPI is generated from them. */
import { z } from 'zod';
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

export const id = z.string().min(1).max(128);
export const workspacePermission = z.enum(['read', 'write', 'admin']);
export const organizationRole = z.enum(['owner', 'admin', 'member']);
export const plan = z.enum(['free', 'pro', 'team', 'enterprise']);
export const trigger = z.enum(triggers);

export const errorBody = z
  .object({
    error: z.string(),
    code: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Error' });

export const block = z.object({
  id: id,
  type: z.string().min(1),
  name: z.string().min(1).max(200),
  parentId: z.string().nullable().optional(),
  enabled: z.boolean().optional(),
  config: z.record(z.string(), z.unknown()).default({}),
});

export const edge = z.object({
  id: id,
  source: id,
  target: id,
  sourceHandle: z.string().optional(),
  targetHandle: z.string().optional(),
});

export const workflowGraph = z
  .object({
    blocks: z.record(z.string(), block),
    edges: z.array(edge).default([]),
    loops: z.record(z.string(), z.unknown()).default({}),
    parallels: z.record(z.string(), z.unknown()).default({}),
  })
  .meta({ id: 'WorkflowGraph' });

const usageLimitUsd = z.number().min(0).max(1e9);

export const user = z
  .object({
    id,
    email: z.string(),
    name: z.string(),
    plan,
    /** USD a calendar month; absent: the plan's. */
    usageLimitUsd: usageLimitUsd.optional(),
    organizationId: id.optional(),
    createdAt: z.string(),
  })
  .meta({ id: 'User' });

export const apiKey = z
  .object({
    id,
    name: z.string(),
    userId: id,
    /** First characters of the key, so a person can tell keys apart; the key itself is never stored. */
    prefix: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().optional(),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKey = apiKey.extend({ key: z.string() }).meta({ id: 'CreatedApiKey' });

export const workspace = z
  .object({
    id,
    name: z.string(),
    ownerId: id,
    organizationId: id.optional(),
    createdAt: z.string(),
    permissions: workspacePermission.optional(),
  })
  .meta({ id: 'Workspace' });

export const workspaceMember = z
  .object({ workspaceId: id, userId: id, permissions: workspacePermission })
  .meta({ id: 'WorkspaceMember' });

export const organization = z
  .object({
    id,
    name: z.string(),
    ownerId: id,
    plan,
    usageLimitUsd: usageLimitUsd.optional(),
    createdAt: z.string(),
  })
  .meta({ id: 'Organization' });

export const organizationMember = z
  .object({ organizationId: id, userId: id, role: organizationRole })
  .meta({ id: 'OrganizationMember' });

export const workflow = z
  .object({
    id,
    workspaceId: id,
    folderId: z.string().nullable(),
    name: z.string(),
    description: z.string(),
    state: workflowGraph,
    isDeployed: z.boolean(),
    deployedAt: z.string().optional(),
    deployedVersion: z.number().int().optional(),
    needsRedeployment: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Workflow' });

export const workflowSummary = workflow.omit({ state: true }).meta({ id: 'WorkflowSummary' });

export const workflowStatus = z
  .object({ isDeployed: z.boolean(), deployedAt: z.string().optional(), needsRedeployment: z.boolean() })
  .meta({ id: 'WorkflowStatus' });

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
  .meta({ id: 'Cost', description: 'USD; the base charge per run is included in total' });

export const syncResult = z
  .object({
    success: z.boolean(),
    output: z.unknown().optional(),
    error: z.string().optional(),
    metadata: z
      .object({ duration: z.number(), executionId: z.string(), cost: cost.optional() })
      .passthrough()
      .optional(),
    traceSpans: z.array(z.unknown()).optional(),
    totalDuration: z.number().optional(),
  })
  .meta({ id: 'SyncExecutionResult' });

const name = z.string().trim().min(1).max(200);

export const createUserBody = z.object({
  email: z.email(),
  name,
  plan: plan.optional(),
  usageLimitUsd: usageLimitUsd.optional(),
});
export const updateLimitsBody = z
  .object({ plan: plan.optional(), usageLimitUsd: usageLimitUsd.nullable().optional() })
  .strict()
  .refine((body) => Object.keys(body).length > 0, {
    message: "Nothing to update: give plan, or usageLimitUsd (null returns to the plan's)",
  });
export const createApiKeyBody = z.object({ name: z.string().trim().min(1).max(100).optional() });
export const createWorkspaceAdminBody = z.object({ name, ownerId: id, organizationId: id.optional() });
export const createWorkspaceBody = z.object({ name, organizationId: id.optional() });
export const importWorkflowBody = z.object({
  workspaceId: id,
  name,
  description: z.string().max(2000).optional(),
  state: workflowGraph,
  deploy: z.boolean().optional(),
});
export const createOrganizationBody = z.object({
  name,
  ownerId: id,
  plan: plan.optional(),
  usageLimitUsd: usageLimitUsd.optional(),
});
export const addOrganizationMemberBody = z.object({ userId: id, role: organizationRole });
export const addWorkspaceMemberBody = z.object({ userId: id, permissions: workspacePermission });
export const removeWorkspaceMemberQuery = z.object({ userId: id });

export const createWorkflowBody = z.object({
  workspaceId: id,
  name,
  description: z.string().max(2000).optional(),
  folderId: z.string().nullable().optional(),
  state: workflowGraph.optional(),
});
export const updateWorkflowBody = z
  .object({
    name: name.optional(),
    description: z.string().max(2000).optional(),
    folderId: z.string().nullable().optional(),
    state: workflowGraph.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'Nothing to update: give name, description, folderId or state',
  });
export const listWorkflowsQuery = z.object({ workspaceId: id });

export const workspaceIdParams = z.object({ workspaceId: id });
export const workflowIdParams = z.object({ workflowId: id });
export const userIdParams = z.object({ userId: id });
export const organizationIdParams = z.object({ orgId: id });
export const keyIdParams = z.object({ keyId: id });

/** The execute body: workflow input fields plus the control members. */
export const executeBody = z
  .object({
    stream: z.boolean().optional(),
    selectedOutputs: z.array(z.string()).optional(),
  })
  .catchall(z.unknown());

export const environmentVariableName = z
  .string()
  .min(1)
  .max(MAX_ENVIRONMENT_NAME_LENGTH)
  .regex(ENVIRONMENT_NAME_PATTERN, environmentNameRule);
export const environmentVariableParams = z.object({ workspaceId: id, name: environmentVariableName });
export const putEnvironmentVariableBody = z.object({
  value: z
    .string()
    .max(MAX_ENVIRONMENT_VALUE_BYTES)
    .refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_ENVIRONMENT_VALUE_BYTES, {
      message: `At most ${MAX_ENVIRONMENT_VALUE_BYTES} bytes (64 KB) of UTF-8`,
    }),
});
export const environmentVariable = z
  .object({
    name: z.string(),
    value: z
      .string()
      .optional()
      .describe('In clear for members with write or admin permission; absent for read members'),
    updatedAt: z.string(),
    updatedBy: id,
  })
  .meta({ id: 'EnvironmentVariable' });

export const data = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

/**
 * Beside `data` in a workflow's save and deploy answers when the saver's permission group does not
 * allow some of its blocks (core/permissions/check.ts): each names the block and what is refused.
 */
export const permissionWarnings = z
  .array(
    z.object({
      blockId: z.string(),
      blockName: z.string(),
      blockType: z.string(),
      kind: z.string(),
      provider: z.string().optional(),
      message: z.string(),
    }),
  )
  .optional();
/** `{data, warnings?}`: a workflow save or deploy answer. */
export const dataWithWarnings = <T extends z.ZodType>(schema: T) =>
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
  .meta({ id: 'AsyncExecutionResult' });
export const jobStatus = z
  .object({
    success: z.boolean(),
    taskId: z.string(),
    status: jobStatusValue,
    metadata: z.object({
      startedAt: z.string().optional(),
      completedAt: z.string().optional(),
      duration: z.number().optional(),
    }),
    output: z.unknown().optional(),
    error: z.unknown().optional(),
    estimatedDuration: z.number().optional(),
  })
  .meta({ id: 'JobStatus' });

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
  .meta({ id: 'UsageLimits' });

// Manual runs
export const runWorkflowBody = z.object({
  input: z.record(z.string(), z.unknown()).optional(),
  draft: z.boolean().optional(),
});

// Webhook triggers
export const webhookPath = z
  .string()
  .min(1)
  .max(MAX_WEBHOOK_PATH_LENGTH)
  .regex(WEBHOOK_PATH_PATTERN, webhookPathRule);
export const createWebhookBody = z.object({
  path: webhookPath.optional(),
  secret: z.string().min(MIN_WEBHOOK_SECRET_LENGTH).max(MAX_WEBHOOK_SECRET_LENGTH).optional(),
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
  .meta({ id: 'Webhook' });
export const webhookParams = z.object({ workflowId: id, webhookId: id });
// Any text: a path no webhook can have is unknown, a 404 like any other (see resolveWebhookCall).
export const webhookTriggerParams = z.object({ path: z.string().min(1) });

// Schedules
export const putScheduleBody = z
  .object({
    cron: z.string().trim().min(9).max(200).optional(),
    rateMinutes: z.number().int().min(1).max(525_600).optional(),
    timezone: z.string().min(1).max(64).optional(),
    input: z.record(z.string(), z.unknown()).optional(),
    enabled: z.boolean().optional(),
  })
  .refine((body) => (body.cron === undefined) !== (body.rateMinutes === undefined), {
    message: 'Give exactly one of cron and rateMinutes',
  });
export const schedule = z
  .object({
    workflowId: id,
    cron: z.string().optional(),
    rateMinutes: z.number().optional(),
    timezone: z.string(),
    input: z.record(z.string(), z.unknown()),
    enabled: z.boolean(),
    nextRunAt: z.string().nullable(),
    lastRunAt: z.string().optional(),
    /** Why the last fire started no run: input that no longer fits the Start block, a lost permission. */
    lastError: z.string().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Schedule' });
