/** Loopback servers that speak the model providers' real wire formats, for tests of the SDK adapters. */
export { startAnthropicServer, defaultAnthropicContent } from './anthropic';
export type { ModelServer, RecordedRequest, ScriptedReply } from './http';
export { startOpenAiServer, defaultOpenAiContent } from './openai';
export { useModelServer } from './use';
export { useDeploymentModelServers } from './deployment';
