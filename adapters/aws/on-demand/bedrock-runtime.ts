/** What of client-bedrock-runtime adapters/llm/bedrock.ts calls, loaded with its first Bedrock call (see ./s3.ts). */
export {
  BedrockRuntimeClient,
  BedrockRuntimeServiceException,
  ConverseCommand,
  ConverseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime';
