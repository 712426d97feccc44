/**
 * The host's side of a streamed invocation: the bytes a streamified handler writes, read as API
 * Gateway reads them. After `HttpResponseStream.from` (content type
 * `application/vnd.awslambda.http-integration-response`) they are the prelude JSON (statusCode,
 * headers), eight NUL bytes, then the body; any other stream is a 200 whose body is all of it.
 */
import type { ResponseSink } from '../../functions/http/streaming-route';
import type { StreamListener } from './function-host';

export const httpIntegrationContentType = 'application/vnd.awslambda.http-integration-response';
const delimiter = new Uint8Array(8);

export function streamParser(sink: ResponseSink): StreamListener {
  let contentType: string | undefined;
  let started = false;
  let held = Buffer.alloc(0);
  const decoder = new TextDecoder();
  const start = (statusCode: number, headers: Record<string, string>) => {
    started = true;
    sink.start(statusCode, headers);
  };
  const body = (bytes: Uint8Array) => {
    const text = decoder.decode(bytes, { stream: true });
    if (text) sink.write(text);
  };
  return {
    contentType(type) {
      contentType = type;
    },
    chunk(bytes) {
      if (started) return body(bytes);
      if (contentType !== httpIntegrationContentType) {
        start(200, contentType ? { 'content-type': contentType } : {});
        return body(bytes);
      }
      held = Buffer.concat([held, bytes]);
      const at = held.indexOf(delimiter);
      if (at === -1) return;
      const prelude = JSON.parse(held.subarray(0, at).toString('utf8')) as {
        statusCode?: number;
        headers?: Record<string, string>;
      };
      start(prelude.statusCode ?? 200, prelude.headers ?? {});
      const rest = held.subarray(at + delimiter.length);
      held = Buffer.alloc(0);
      if (rest.length > 0) body(rest);
    },
    end() {
      if (!started) start(200, {});
      const rest = decoder.decode();
      if (rest) sink.write(rest);
      sink.end();
    },
  };
}
