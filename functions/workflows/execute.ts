/**
 * Execute: sync (the Express machine), async (`X-Execution-Mode: async`: a job), or streamed
 * (`stream: true` or `X-Stream-Response: true`: server-sent events from the engine run here).
 */
// First: a bundle started as a sandbox or document worker serves that role (see the module).
import '../../adapters/worker-roles';
import { workflowRoutes } from '../../catalog/workflow-routes';
import { enqueueRun } from '../../core/jobs/service';
import { withinSyncDeadline } from '../../core/runs/deadline';
import { prepareRun } from '../../core/runs/prepare';
import { prepareStream, streamRun } from '../../core/runs/stream';
import { executionBucketOf } from '../http/limits';
import { logger } from '../http/logger';
import { streamingHttpRoute } from '../http/streaming-route';
import { executionStarter, syncBudgetInMs } from '../wiring/execution';
import { prepareDeps } from '../wiring/prepare';
import { enqueueDeps } from '../wiring/jobs';

export const handler = streamingHttpRoute(
  workflowRoutes,
  'executeWorkflow',
  async ({ principal, params, body, headers, limits }, sink) => {
    const { stream, selectedOutputs, ...input } = body;
    const mode = executionBucketOf(headers);
    const streamed =
      mode === 'sync' && (stream === true || headers['x-stream-response']?.trim().toLowerCase() === 'true');
    // A streamed run is not bound by the sync budget: its caller gets answers as it goes.
    const prepare = streamed ? { ...prepareDeps(), syncBudgetInMs: undefined } : prepareDeps();
    const request = await prepareRun(prepare, principal, params.workflowId, input, {
      trigger: 'api',
      mode,
      usage: limits.usage(),
    });
    limits.keepCharge();
    logger.appendKeys({ executionId: request.executionId, workflowId: request.workflowId });
    if (mode === 'async') return { statusCode: 202, body: await enqueueRun(enqueueDeps(), request) };
    if (streamed) {
      // Loaded on the first streamed run only: the engine's sandbox and model SDKs are then not
      // initialised on the cold start of a sync or async request.
      const { streamDeps } = await import('../wiring/stream');
      const deps = streamDeps();
      const prepared = await prepareStream(deps, request, selectedOutputs);
      sink.start(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
        // The frames carry no execution id; this names the run's log entry.
        'x-execution-id': request.executionId,
      });
      const outcome = await streamRun(deps, prepared, (frame) => sink.write(frame));
      sink.end();
      logger.info('Run finished', { success: outcome.success, durationMs: outcome.durationInMs });
      if (outcome.fault) logger.error('Streamed run broke', { error: outcome.fault as Error });
      return undefined;
    }
    const answer = await withinSyncDeadline(
      executionStarter().startSync(request),
      request.startedAt,
      syncBudgetInMs(),
    );
    logger.info('Run finished', { success: answer.body.success, durationMs: answer.body.metadata.duration });
    return { statusCode: answer.httpStatus, headers: answer.headers, body: answer.body };
  },
);
