/** Wiring of webhook triggers: the store, the environment cipher for secrets, and the public base URL. */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { DynamoWebhookStore } from '../../adapters/dynamodb/webhook-store';
import type { WebhookDeps } from '../../core/webhooks/service';
import { environmentCipher } from './environment';
import { identityDeps } from './identity';
import { workflowDeps } from './workflows';

export function webhookDeps(): WebhookDeps {
  return {
    identity: identityDeps().store,
    workflows: { getWorkflow: (id) => workflowDeps().workflows.getWorkflow(id) },
    webhooks: DynamoWebhookStore.fromEnv(),
    cipher: environmentCipher,
    now: () => new Date(),
  };
}

/**
 * Where callers reach this service: `PUBLIC_BASE_URL` when set (a custom domain, CloudFront),
 * else the host the request came to, with API Gateway's stage when it is in the path.
 */
export function publicBaseUrl(event: APIGatewayProxyEvent, headers: Record<string, string>): string {
  const configured = process.env.PUBLIC_BASE_URL;
  if (configured) return configured.replace(/\/+$/, '');
  const host = headers.host ?? 'localhost';
  const local = /^(localhost|127\.|\[::1\])/.test(host);
  const protocol = headers['x-forwarded-proto'] ?? (local ? 'http' : 'https');
  const stage = event.requestContext?.stage;
  const stagePrefix = stage && event.requestContext.path?.startsWith(`/${stage}/`) ? `/${stage}` : '';
  return `${protocol}://${host}${stagePrefix}`;
}
