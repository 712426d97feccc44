/** Wire schemas of the log API: the query's parameters and the three answers. */
import { z } from 'zod';
import { triggers } from '../core/triggers';
import { id, workflowGraph } from './schemas';

/** Page sizes the log list accepts; the interface's default page is 100. */
export const minLogLimit = 1;
export const maxLogLimit = 1000;
export const defaultLogLimit = 100;

const maxListItems = 100;

/** `a,b,c`: each item checked by `item`; empty items (a trailing comma) are ignored. */
function commaList<T extends z.ZodType<string>>(item: T, what: string) {
  return z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    )
    .pipe(
      z
        .array(item)
        .min(1, `Give at least one ${what}`)
        .max(maxListItems, `Give at most ${maxListItems} ${what}s`) as unknown as z.ZodType<
        Array<z.output<T>>,
        string[]
      >,
    );
}

const isoPattern = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or date-time (UTC unless it names an offset), as a UTC ISO timestamp. */
const isoTimestamp = z
  .string()
  .regex(isoPattern, 'Must be an ISO 8601 date or date-time, e.g. 2026-11-24T10:00:00Z')
  .transform((text, context) => {
    const zoned = /T/.test(text) && !/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? `${text}Z` : text;
    const time = Date.parse(zoned);
    if (Number.isNaN(time)) {
      context.addIssue({ code: 'custom', message: 'Not a valid date' });
      return z.NEVER;
    }
    return new Date(time).toISOString();
  });

const wholeNumber = (what: string) =>
  z
    .string()
    .regex(/^\d+$/, `Must be a whole number of ${what}`)
    .transform(Number)
    .pipe(z.number().max(Number.MAX_SAFE_INTEGER, 'Too large'));

const usd = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'Must be a number of USD, e.g. 0.05')
  .transform(Number);

const flag = z
  .enum(['true', 'false'], { message: 'Must be true or false' })
  .transform((text) => text === 'true');

export const listLogsQuery = z
  .strictObject({
    workspaceId: id,
    workflowIds: commaList(id, 'workflow id').optional(),
    folderIds: commaList(id, 'folder id').optional(),
    triggers: commaList(
      z.enum(triggers, { message: `Must be one of ${triggers.join(', ')}` }),
      'trigger',
    ).optional(),
    level: z.enum(['info', 'error'], { message: 'Must be info or error' }).optional(),
    startDate: isoTimestamp.optional(),
    endDate: isoTimestamp.optional(),
    executionId: id.optional(),
    minDurationMs: wholeNumber('milliseconds').optional(),
    maxDurationMs: wholeNumber('milliseconds').optional(),
    minCost: usd.optional(),
    maxCost: usd.optional(),
    model: z.string().min(1).max(200).optional(),
    limit: z
      .string()
      .regex(/^\d+$/, `Must be a whole number from ${minLogLimit} to ${maxLogLimit}`)
      .transform(Number)
      .pipe(
        z
          .number()
          .min(minLogLimit, `Must be from ${minLogLimit} to ${maxLogLimit}`)
          .max(maxLogLimit, `Must be from ${minLogLimit} to ${maxLogLimit}`),
      )
      .default(defaultLogLimit),
    cursor: z.string().min(1).max(2048).optional(),
    order: z.enum(['asc', 'desc'], { message: 'Must be asc or desc' }).default('desc'),
    details: z.enum(['basic', 'full'], { message: 'Must be basic or full' }).default('basic'),
    includeTraceSpans: flag.default(false),
    includeFinalOutput: flag.default(false),
  })
  .superRefine((query, context) => {
    const backwards = (low: unknown, high: unknown, path: string, message: string) => {
      if (low !== undefined && high !== undefined && (low as number | string) > (high as number | string)) {
        context.addIssue({ code: 'custom', path: [path], message });
      }
    };
    backwards(query.startDate, query.endDate, 'endDate', 'Must not be before startDate');
    backwards(query.minDurationMs, query.maxDurationMs, 'maxDurationMs', 'Must not be below minDurationMs');
    backwards(query.minCost, query.maxCost, 'maxCost', 'Must not be below minCost');
  });

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
  .meta({ id: 'Cost' });

const executionBucket = z.object({
  requestsPerMinute: z.number().int(),
  maxBurst: z.number().int(),
  remaining: z.number().int(),
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
  .meta({ id: 'LimitsBlock' });

const workflowRef = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  deleted: z.literal(true).optional(),
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
  totalDurationMs: z.number().int(),
};

export const logListItem = z
  .object({
    ...logEntryFields,
    cost: z.union([costObject, z.object({ total: z.number() })]),
    files: z.array(z.record(z.string(), z.unknown())).nullable(),
    workflow: workflowRef.optional().describe('With details=full'),
    traceSpans: z.array(z.unknown()).optional().describe('With includeTraceSpans=true'),
    finalOutput: z.unknown().optional().describe('With includeFinalOutput=true'),
  })
  .meta({ id: 'LogListItem' });

export const logList = z.object({
  data: z.array(logListItem),
  nextCursor: z.string().optional().describe('Absent on the last page'),
  pollCursor: z
    .string()
    .optional()
    .describe('Ascending queries with an open date range, on their last page: where the next poll resumes'),
  limits: limitsBlock,
});

export const logDetail = z
  .object({
    ...logEntryFields,
    workflow: workflowRef,
    executionData: z.object({
      traceSpans: z.array(z.unknown()),
      finalOutput: z.unknown(),
      error: z.string().optional(),
    }),
    cost: costObject,
    limits: limitsBlock,
  })
  .meta({ id: 'LogDetail' });

export const executionDetail = z
  .object({
    executionId: z.string(),
    workflowId: z.string(),
    workflowState: workflowGraph,
    executionMetadata: z.object({
      trigger: z.enum(triggers),
      startedAt: z.string(),
      endedAt: z.string(),
      totalDurationMs: z.number().int(),
      cost: costObject,
    }),
    limits: limitsBlock,
  })
  .meta({ id: 'ExecutionDetail' });
