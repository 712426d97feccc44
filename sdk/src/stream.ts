/**
 * A streamed run: the server-sent events of the execute endpoint, one parsed frame at a time, and
 * a way to wait for the run's result instead.
 */
import { WorkflowClientError } from './errors.js';
import type { WorkflowExecutionResult } from './types.js';

/** A selected block output, sent when its block completes. */
export interface ChunkEvent {
  event: 'chunk';
  blockId: string;
  chunk: string;
}

/** The run failed; a `done` event follows. */
export interface ErrorEvent {
  event: 'error';
  error: string;
}

/** The run ended. */
export interface DoneEvent {
  event: 'done';
  success: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: a workflow's output is whatever its Response block builds
  output: any;
  metadata: { duration: number; [key: string]: unknown };
}

/** The stream's end marker (`data: [DONE]`); nothing follows it. */
export interface EndEvent {
  event: 'end';
}

export type StreamEvent = ChunkEvent | ErrorEvent | DoneEvent | EndEvent;

/** A streamed run's result: the `done` event's members, the error if any, and every chunk in order. */
export interface StreamResult extends WorkflowExecutionResult {
  chunks: Array<{ blockId: string; chunk: string }>;
}

/** Turns the text of one event (its `data:` lines joined) into an event; frames of other shapes give undefined. */
export function eventOf(data: string): StreamEvent | undefined {
  if (data === '[DONE]') return { event: 'end' };
  let frame: Record<string, unknown>;
  try {
    frame = JSON.parse(data);
  } catch {
    throw new WorkflowClientError(
      `The event stream sent a frame that is not JSON: ${data.slice(0, 200)}`,
      'INVALID_RESPONSE',
    );
  }
  if (frame === null || typeof frame !== 'object') return undefined;
  if (frame.event === 'done' || frame.event === 'error') return frame as unknown as StreamEvent;
  if (typeof frame.blockId === 'string' && 'chunk' in frame) {
    return { event: 'chunk', blockId: frame.blockId, chunk: String(frame.chunk) };
  }
  // A kind of frame this version does not know: skipped, so that newer services do not break it.
  return undefined;
}

/** Splits a byte stream into server-sent events (blank-line separated; `data:` lines; comments skipped). */
export async function* eventsOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffered = '';
  const parse = (block: string) => {
    const data = block
      .split(/\r?\n|\r/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    return data.length === 0 ? undefined : eventOf(data.join('\n'));
  };
  for await (const chunk of chunks) {
    buffered += decoder.decode(chunk, { stream: true });
    for (;;) {
      const end = /\r?\n\r?\n|\r\r/.exec(buffered);
      if (!end) break;
      const block = buffered.slice(0, end.index);
      buffered = buffered.slice(end.index + end[0].length);
      const event = parse(block);
      if (event) yield event;
    }
  }
  buffered += decoder.decode();
  const event = buffered.trim() ? parse(buffered) : undefined;
  if (event) yield event;
}

/**
 * The events of a streamed run. Iterate it (`for await (const event of stream)`), or call
 * `result()` for the run's result. Either reads the stream once. Leaving the loop early, or
 * `cancel()`, closes the connection. The time-out of the call is the longest silence between two
 * pieces of the stream.
 */
export class ExecutionStream implements AsyncIterable<StreamEvent> {
  private consumed = false;

  constructor(
    private readonly events: AsyncGenerator<StreamEvent>,
    private readonly close: () => void,
    /** The execution id, from the `x-execution-id` header, when the service sent one. */
    readonly executionId: string | undefined,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    if (this.consumed) throw new WorkflowClientError('This stream has already been read', 'VALIDATION_ERROR');
    this.consumed = true;
    return this.events;
  }

  /** Stops reading and closes the connection. */
  cancel(): void {
    this.consumed = true;
    this.close();
    void this.events.return(undefined);
  }

  /**
   * Reads the whole stream and answers the run's result. A failed run raises `EXECUTION_ERROR`
   * with the result in `error.result`, as a failed synchronous run does.
   */
  async result(): Promise<StreamResult> {
    const chunks: StreamResult['chunks'] = [];
    let error: string | undefined;
    let done: DoneEvent | undefined;
    for await (const event of this) {
      if (event.event === 'chunk') chunks.push({ blockId: event.blockId, chunk: event.chunk });
      else if (event.event === 'error') error = event.error;
      else if (event.event === 'done') done = event;
    }
    if (!done) {
      throw new WorkflowClientError('The event stream ended before the run did', 'INVALID_RESPONSE');
    }
    const result: StreamResult = {
      success: done.success,
      output: done.output,
      ...(error !== undefined ? { error } : {}),
      metadata: { ...done.metadata, ...(this.executionId ? { executionId: this.executionId } : {}) },
      chunks,
    };
    if (!result.success) {
      throw new WorkflowClientError(error ?? 'The workflow run failed', 'EXECUTION_ERROR', undefined, {
        result,
      });
    }
    return result;
  }
}
