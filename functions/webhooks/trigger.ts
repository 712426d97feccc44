import { webhookRoutes } from '../../catalog/webhook-routes';
import { ValidationError } from '../../core/errors';
import { enqueueRun } from '../../core/jobs/service';
import { prepareRun } from '../../core/runs/prepare';
import { resolveWebhookCall } from '../../core/webhooks/service';
import { parseJsonBody, requireJsonContentType } from '../http/json-body';
import { admitWebhookCall } from '../http/limits';
import { publicRoute } from '../http/route';
import { prepareDeps } from '../wiring/prepare';
import { enqueueDeps } from '../wiring/jobs';
import { webhookDeps } from '../wiring/webhooks';

/** A webhook call: signed (or bearer) when the webhook has a secret; its JSON body is the run's input. */
export const handler = publicRoute(
  webhookRoutes,
  'triggerWebhook',
  async ({ params, headers, event, limits, logger }) => {
    const rawBody = event.isBase64Encoded
      ? Buffer.from(event.body ?? '', 'base64').toString('utf8')
      : (event.body ?? '');
    const { principal, workflowId, webhookId } = await resolveWebhookCall(webhookDeps(), params.path, {
      signatureHeader: headers['svc-signature'],
      authorizationHeader: headers.authorization,
      rawBody,
    });
    // The owner's async bucket, as an asynchronous execution by the owner would draw.
    await admitWebhookCall(principal.user, limits);
    if (rawBody !== '') requireJsonContentType(headers['content-type']);
    const input = parseJsonBody(event);
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new ValidationError(
        'The webhook body must be a JSON object: its members are the workflow inputs',
      );
    }
    const request = await prepareRun(prepareDeps(), principal, workflowId, input as Record<string, unknown>, {
      trigger: 'webhook',
      mode: 'async',
      usage: limits.usage(),
    });
    limits.keepCharge();
    logger.appendKeys({ executionId: request.executionId, workflowId, webhookId });
    return { statusCode: 202, body: await enqueueRun(enqueueDeps(), request) };
  },
);
