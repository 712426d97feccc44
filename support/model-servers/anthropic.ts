/**
 * An Anthropic Messages API server (`POST /v1/messages`) speaking the real wire format: a `message`
 * JSON body, or with `stream: true` the SSE event stream `message_start`, `content_block_start`,
 * `ping`, `content_block_delta`..., `content_block_stop`, `message_delta` (stop reason and output
 * usage), `message_stop`. A request that forces a tool (`tool_choice: {type: 'tool', name}`) gets a
 * `tool_use` block whose input is the scripted `structured` answer (streamed as `input_json_delta`).
 * Errors are `{"type": "error", "error": {"type", "message"}}`.
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

export const defaultAnthropicContent = 'Hello from the test Claude.';

function errorTypeOf(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return 'api_error';
  }
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
        type: 'error',
        error: { type: errorTypeOf(reply.status), message: reply.errorMessage ?? 'Something went wrong' },
        request_id: 'req_test',
      },
      { 'request-id': 'req_test', ...reply.headers },
    );
    return;
  }
  const body = request.body ?? {};
  const model = reply.model ?? body.model ?? 'claude-test';
  const inputTokens = reply.usage?.input ?? 13;
  const outputTokens = reply.usage?.output ?? 9;
  const forcedTool: string | undefined =
    body.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
  const text = reply.content ?? defaultAnthropicContent;
  const stopReason = reply.finishReason ?? (forcedTool ? 'tool_use' : 'end_turn');
  const toolUse = forcedTool
    ? { type: 'tool_use', id: 'toolu_test1', name: forcedTool, input: reply.structured ?? {} }
    : undefined;

  if (!body.stream) {
    sendJson(
      response,
      200,
      {
        id: 'msg_test1',
        type: 'message',
        role: 'assistant',
        model,
        content: toolUse ? [toolUse] : [{ type: 'text', text, citations: null }],
        stop_reason: stopReason,
        stop_sequence: null,
        usage: {
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          service_tier: 'standard',
        },
      },
      { 'request-id': 'req_test' },
    );
    return;
  }

  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': 'req_test',
  });
  const events: Array<[string, unknown]> = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_test1',
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: inputTokens,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      },
    ],
  ];
  if (toolUse) {
    events.push([
      'content_block_start',
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: toolUse.id, name: toolUse.name, input: {} },
      },
    ]);
    events.push(['ping', { type: 'ping' }]);
    for (const piece of reply.chunks ?? piecesOf(JSON.stringify(toolUse.input), 8)) {
      events.push([
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: piece } },
      ]);
    }
  } else {
    events.push([
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ]);
    events.push(['ping', { type: 'ping' }]);
    for (const piece of reply.chunks ?? piecesOf(text)) {
      events.push([
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } },
      ]);
    }
  }
  events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
  events.push([
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    },
  ]);
  events.push(['message_stop', { type: 'message_stop' }]);
  let held = false;
  for (const [name, data] of events) {
    if (isClosed()) return;
    response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    if (name === 'content_block_delta' && !held && reply.holdAfterFirstChunk) {
      held = true;
      await reply.holdAfterFirstChunk;
    }
    if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
  }
  response.end();
}

/** Start with `baseUrl: server.url` (the SDK adds `/v1/messages`). */
export function startAnthropicServer(): Promise<ModelServer> {
  return startModelServer('/v1/messages', handle);
}
