/**
 * An OpenAI-compatible Chat Completions server (`POST /v1/chat/completions`) speaking the real wire
 * format: a `chat.completion` JSON body, or with `stream: true` an SSE stream of
 * `chat.completion.chunk` objects ending in `data: [DONE]`, with a final usage chunk (empty
 * `choices`) when the request sets `stream_options.include_usage`. A request with
 * `response_format.type = json_schema` gets the scripted `structured` answer as its JSON content.
 */
import type { ServerResponse } from 'node:http';
import {
  type ModelServer,
  piecesOf,
  type RecordedRequest,
  type ScriptedReply,
  sendJson,
  sleep,
  startModelServer,
} from './http';

export const defaultOpenAiContent = 'Hello from the test model.';

function errorTypeOf(status: number): string {
  if (status === 401) return 'invalid_request_error';
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function contentOf(request: RecordedRequest, reply: ScriptedReply): string {
  if (request.body?.response_format?.type === 'json_schema') {
    return reply.content ?? JSON.stringify(reply.structured ?? {});
  }
  return reply.content ?? defaultOpenAiContent;
}

function usageOf(reply: ScriptedReply) {
  const input = reply.usage?.input ?? 11;
  const output = reply.usage?.output ?? 7;
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

async function handle(
  request: RecordedRequest,
  reply: ScriptedReply,
  response: ServerResponse,
  isClosed: () => boolean,
) {
  if (reply.status && reply.status >= 400) {
    sendJson(
      response,
      reply.status,
      reply.errorBody ?? {
        error: {
          message: reply.errorMessage ?? 'Something went wrong',
          type: errorTypeOf(reply.status),
          param: null,
          code: null,
        },
      },
      { 'x-request-id': 'req_test', ...reply.headers },
    );
    return;
  }
  const id = 'chatcmpl-test1';
  const created = Math.floor(Date.now() / 1000);
  const model = reply.model ?? request.body?.model ?? 'gpt-test';
  const content = contentOf(request, reply);
  const finishReason = reply.finishReason ?? 'stop';

  if (!request.body?.stream) {
    sendJson(
      response,
      200,
      {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, refusal: null, annotations: [] },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage: usageOf(reply),
        service_tier: 'default',
        system_fingerprint: 'fp_test',
      },
      { 'x-request-id': 'req_test' },
    );
    return;
  }

  const includeUsage = request.body?.stream_options?.include_usage === true;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': 'req_test',
  });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    service_tier: 'default',
    system_fingerprint: 'fp_test',
    choices,
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const events: unknown[] = [
    chunk([
      {
        index: 0,
        delta: { role: 'assistant', content: '', refusal: null },
        logprobs: null,
        finish_reason: null,
      },
    ]),
    ...(reply.chunks ?? piecesOf(content)).map((text) =>
      chunk([{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }]),
    ),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]),
  ];
  if (includeUsage) events.push(chunk([], { usage: usageOf(reply) }));
  for (const [index, event] of events.entries()) {
    if (isClosed()) return;
    response.write(`data: ${JSON.stringify(event)}\n\n`);
    // The first event only names the role; the text starts with the second.
    if (index === 1 && reply.holdAfterFirstChunk) await reply.holdAfterFirstChunk;
    if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
  }
  response.end('data: [DONE]\n\n');
}

/** Start with `baseUrl: server.url` (it ends in `/v1`, as OpenAI's base URL does). */
export async function startOpenAiServer(): Promise<ModelServer> {
  const server = await startModelServer('/v1/chat/completions', handle);
  return { ...server, url: `${server.url}/v1` };
}
