/** Loopback servers that speak the model providers' real wire formats, for the tests of the SDK adapters and the cost model's runs. */
export { defaultAnthropicContent, startAnthropicServer } from './anthropic';
export type { ModelServer, RecordedRequest, ScriptedReply } from './http';
export { defaultOpenAiContent, startOpenAiServer } from './openai';
