import { afterAll, beforeAll } from 'vitest';
import { startAnthropicServer } from '../../../support/model-servers/anthropic';
import type { ModelServer } from '../../../support/model-servers/http';
import { startOpenAiServer } from '../../../support/model-servers/openai';

/**
 * Loopback OpenAI and Anthropic servers as the deployment's model endpoints of the local service
 * of a test file (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, read when its first run builds the engine).
 * Call it before `useLocalService`, so that the endpoints are set before the service starts.
 */
export function useDeploymentModelServers(): { openai(): ModelServer; anthropic(): ModelServer } {
  let openai: ModelServer | undefined;
  let anthropic: ModelServer | undefined;
  beforeAll(async () => {
    openai = await startOpenAiServer();
    anthropic = await startAnthropicServer();
    process.env.OPENAI_BASE_URL = openai.url;
    process.env.ANTHROPIC_BASE_URL = anthropic.url;
  });
  afterAll(async () => {
    delete process.env.OPENAI_BASE_URL;
    delete process.env.ANTHROPIC_BASE_URL;
    await openai?.close();
    await anthropic?.close();
  });
  const started = (server: ModelServer | undefined) => {
    if (!server) throw new Error('The model servers have not started');
    return server;
  };
  return { openai: () => started(openai), anthropic: () => started(anthropic) };
}
