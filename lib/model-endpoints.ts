/**
 * The deployment's model endpoints, given at deploy time as CDK context
 * (`cdk deploy -c openaiBaseUrl=https://gateway.example.com/v1 -c anthropicBaseUrl=…`) and set on
 * every function that runs blocks as `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`.
 */
import type { Node } from 'constructs';
import { modelBaseUrlsFrom, modelEndpointSettings } from '../adapters/llm/endpoints';

export const modelEndpointContext = { openai: 'openaiBaseUrl', anthropic: 'anthropicBaseUrl' } as const;

/** The environment variables of the endpoints the context gives (checked as the functions check them). */
export function modelEndpointEnvironment(node: Node): Record<string, string> {
  const settings: Record<string, string | undefined> = {};
  for (const [provider, contextName] of Object.entries(modelEndpointContext) as [
    keyof typeof modelEndpointContext,
    string,
  ][]) {
    const value = node.tryGetContext(contextName);
    if (value !== undefined && value !== null) settings[modelEndpointSettings[provider]] = String(value);
  }
  const urls = modelBaseUrlsFrom(settings);
  const environment: Record<string, string> = {};
  for (const [provider, url] of Object.entries(urls) as [keyof typeof modelEndpointSettings, string][])
    environment[modelEndpointSettings[provider]] = url;
  return environment;
}
