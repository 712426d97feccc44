/** Wire schemas of the log API: the query's parameters and the three answers. */
import * as z from './zod';
import { triggers } from '../core/triggers';
import { id, isoTimestamp, workflowGraph } from './schemas';

/** Page sizes the log list accepts; the interface's default page is 100. */
export const minLogLimit = 1;
export const maxLogLimit = 1000;
export const defaultLogLimit = 100;

const maxListItems = 100;

/** `a,b,c`: each item checked by `item`; empty items (a trailing comma) are ignored. */
function commaList<T extends z.ZodMiniType<string>>(item: T, what: string) {
  return z.pipe(
    z.pipe(
      z.string(),
      z.transform((text: string) =>
        text
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== ''),
      ),
    ),
    z
      .array(item)
      .check(
        z.minLength(1, `Give at least one ${what}`),
        z.maxLength(maxListItems, `Give at most ${maxListItems} ${what}s`),
      ) as unknown as z.ZodMiniType<Array<z.output<T>>, string[]>,
  );
}

const wholeNumber = (what: string) =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^\d+$/, `Must be a whole number of ${what}`)), z.transform(Number)),
    z.number().check(z.lte(Number.MAX_SAFE_INTEGER, 'Too large')),
  );

const usd = z.pipe(
  z.string().check(z.regex(/^\d+(\.\d+)?$/, 'Must be a number of USD, e.g. 0.05')),
  z.transform(Number),
);

const flag = z.pipe(
  z.enum(['true', 'false'], { message: 'Must be true or false' }),
  z.transform((text) => text === 'true'),
);

export const listLogsQuery = z
  .strictObject({
    workspaceId: id,
    workflowIds: z.optional(commaList(id, 'workflow id')),
    folderIds: z.optional(commaList(id, 'folder id')),
    triggers: z.optional(
      commaList(z.enum(triggers, { message: `Must be one of ${triggers.join(', ')}` }), 'trigger'),
    ),
    level: z.optional(z.enum(['info', 'error'], { message: 'Must be info or error' })),
    startDate: z.optional(isoTimestamp),
    endDate: z.optional(isoTimestamp),
    executionId: z.optional(id),
    minDurationMs: z.optional(wholeNumber('milliseconds')),
    maxDurationMs: z.optional(wholeNumber('milliseconds')),
    minCost: z.optional(usd),
    maxCost: z.optional(usd),
    model: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    limit: z._default(
      z.pipe(
        z.pipe(
          z.string().check(z.regex(/^\d+$/, `Must be a whole number from ${minLogLimit} to ${maxLogLimit}`)),
          z.transform(Number),
        ),
        z
          .number()
          .check(
            z.gte(minLogLimit, `Must be from ${minLogLimit} to ${maxLogLimit}`),
            z.lte(maxLogLimit, `Must be from ${minLogLimit} to ${maxLogLimit}`),
          ),
      ),
      defaultLogLimit,
    ),
    cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
    order: z._default(z.enum(['asc', 'desc'], { message: 'Must be asc or desc' }), 'desc'),
    details: z._default(z.enum(['basic', 'full'], { message: 'Must be basic or full' }), 'basic'),
    includeTraceSpans: z._default(flag, false),
    includeFinalOutput: z._default(flag, false),
  })
  .check(
    z.superRefine((query, context) => {
      const backwards = (low: unknown, high: unknown, path: string, message: string) => {
        if (low !== undefined && high !== undefined && (low as number | string) > (high as number | string)) {
          context.addIssue({ code: 'custom', path: [path], message });
        }
      };
      backwards(query.startDate, query.endDate, 'endDate', 'Must not be before startDate');
      backwards(query.minDurationMs, query.maxDurationMs, 'maxDurationMs', 'Must not be below minDurationMs');
      backwards(query.minCost, query.maxCost, 'maxCost', 'Must not be below minCost');
    }),
  );

export const logIdParams = z.object({ id });
export const executionIdParams = z.object({ executionId: id });

const tokens = z.object({ prompt: z.number(), completion: z.number(), total: z.number() });
export const costObject = z
  .object({
    total: z.number(),
    tokens,
    models: z.record(
      z.string(),
      z.object({ input: z.number(), output: z.number(), total: z.number(), tokens }),
    ),
  })
  .register(z.globalRegistry, { id: 'Cost' });

const wholeCount = () => z.number().check(z.int());

const executionBucket = z.object({
  requestsPerMinute: wholeCount(),
  maxBurst: wholeCount(),
  remaining: wholeCount(),
  resetAt: z.string(),
});
export const limitsBlock = z
  .object({
    workflowExecutionRateLimit: z.object({ sync: executionBucket, async: executionBucket }),
    usage: z.object({
      currentPeriodCost: z.number(),
      limit: z.number(),
      plan: z.string(),
      isExceeded: z.boolean(),
    }),
  })
  .register(z.globalRegistry, { id: 'LimitsBlock' });

const workflowRef = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  deleted: z.optional(z.literal(true)),
});

/** The fields a list item and a detail share. */
const logEntryFields = {
  id: z.string(),
  workflowId: z.string(),
  executionId: z.string(),
  level: z.enum(['info', 'error']),
  trigger: z.enum(triggers),
  startedAt: z.string(),
  endedAt: z.string(),
  totalDurationMs: wholeCount(),
};

export const logListItem = z
  .object({
    ...logEntryFields,
    cost: z.union([costObject, z.object({ total: z.number() })]),
    files: z.nullable(z.array(z.record(z.string(), z.unknown()))),
    workflow: z.optional(workflowRef).register(z.globalRegistry, { description: 'With details=full' }),
    traceSpans: z
      .optional(z.array(z.unknown()))
      .register(z.globalRegistry, { description: 'With details=full or includeTraceSpans=true' }),
    finalOutput: z
      .optional(z.unknown())
      .register(z.globalRegistry, { description: 'With details=full or includeFinalOutput=true' }),
  })
  .register(z.globalRegistry, { id: 'LogListItem' });

export const logList = z.object({
  data: z.array(logListItem),
  nextCursor: z.optional(z.string()).register(z.globalRegistry, { description: 'Absent on the last page' }),
  pollCursor: z.optional(z.string()).register(z.globalRegistry, {
    description: 'Ascending queries with an open date range, on their last page: where the next poll resumes',
  }),
  limits: limitsBlock,
});

export const logDetail = z
  .object({
    ...logEntryFields,
    workflow: workflowRef,
    executionData: z.object({
      traceSpans: z.array(z.unknown()),
      finalOutput: z.unknown(),
      error: z.optional(z.string()),
    }),
    cost: costObject,
    limits: limitsBlock,
  })
  .register(z.globalRegistry, { id: 'LogDetail' });

export const executionDetail = z
  .object({
    executionId: z.string(),
    workflowId: z.string(),
    workflowState: workflowGraph,
    executionMetadata: z.object({
      trigger: z.enum(triggers),
      startedAt: z.string(),
      endedAt: z.string(),
      totalDurationMs: wholeCount(),
      cost: costObject,
    }),
    limits: limitsBlock,
  })
  .register(z.globalRegistry, { id: 'ExecutionDetail' });
