/** Wire schemas of the metrics route: the query and the answer. */
import * as z from './zod';
import { id, isoTimestamp } from './schemas';

export const metricsQuery = z
  .strictObject({
    workspaceId: id,
    from: z.optional(isoTimestamp),
    to: z.optional(isoTimestamp),
    bucket: z._default(z.enum(['hour', 'day'], { message: 'Must be hour or day' }), 'hour'),
  })
  .register(z.globalRegistry, {
    description: 'Without from and to: the last 24 hours by hour, the last 30 days by day',
  });

const count = () => z.number().check(z.int());
const estimate = (description: string) => z.nullable(count()).register(z.globalRegistry, { description });

const metricsPoint = z
  .object({
    start: z.string().register(z.globalRegistry, { description: 'ISO start of the bucket (UTC)' }),
    runs: count(),
    errors: count(),
    p50Ms: estimate(
      'Median duration, estimated from a log-scale histogram (within about 9 %); null without runs',
    ),
    p95Ms: estimate('95th percentile duration, estimated as p50Ms; null without runs'),
    meanMs: estimate('Mean duration; null without runs'),
    costUsd: z.number(),
  })
  .register(z.globalRegistry, { id: 'MetricsPoint' });

export const metricsAnswer = z.object({
  data: z
    .array(metricsPoint)
    .register(z.globalRegistry, { description: 'One point per bucket, in time order' }),
  bucket: z.enum(['hour', 'day']),
  from: z.string(),
  to: z.string(),
  topFailingWorkflows: z
    .array(z.object({ workflowId: z.string(), runs: count(), errors: count() }))
    .register(z.globalRegistry, {
      description: 'At most 10 workflows with errors over the range, most errors first',
    }),
});
