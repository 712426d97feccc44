import { describe, expect, it } from 'vitest';
import { functionTimeoutInMs } from '../../../core/engine/blocks/function';
import { formatBytes, jsonSizeInBytes } from '../../../core/engine/json-size';
import { runToCompletion } from '../../../core/engine/run';
import { omittedNote, spanInput, spanValue } from '../../../core/engine/span-values';
import type { TraceSpan } from '../../../core/engine/types';
import { block, contextOf, depsOf, edge, graphOf, inProcessRunner } from './fixtures';

const start = block('s', 'start', 'Start', { inputFormat: [{ name: 'size', type: 'number' }] });

function spansOf(spans: TraceSpan[]): TraceSpan[] {
  return spans[0].children ?? [];
}

describe('jsonSizeInBytes', () => {
  it('measures plain values as long as their JSON text', () => {
    const values = [null, true, false, 0, -12.5, 'héllo', [1, 'a', null], { a: 1, b: [true, {}] }, []];
    for (const value of values) expect(jsonSizeInBytes(value)).toBe(JSON.stringify(value).length);
  });

  it('leaves out undefined members like JSON does', () => {
    expect(jsonSizeInBytes({ a: undefined, b: 1 })).toBe(JSON.stringify({ b: 1 }).length);
  });

  it('stops measuring soon after the size passes the stop mark', () => {
    const huge = Array.from({ length: 100_000 }, () => 'x'.repeat(100));

    const size = jsonSizeInBytes(huge, 1000);

    expect(size).toBeGreaterThan(1000);
    expect(size).toBeLessThan(200_000);
  });

  it('measures values nested deeper than the call stack allows recursion', () => {
    let nested: unknown = 1;
    for (let depth = 0; depth < 100_000; depth++) nested = [nested];

    expect(jsonSizeInBytes(nested)).toBe(200_001);
  });
});

describe('formatBytes', () => {
  it('writes sizes as people read them', () => {
    expect([
      formatBytes(512),
      formatBytes(64 * 1024),
      formatBytes(5 * 1024 * 1024),
      formatBytes(1536),
    ]).toEqual(['512 bytes', '64 KB', '5 MB', '1.5 KB']);
  });
});

describe('span values', () => {
  it('keeps a value within the cap as it is', () => {
    const value = { a: 'x'.repeat(10) };
    expect(spanValue(value, 100)).toBe(value);
  });

  it('replaces a value over the cap by a note of the cap', () => {
    expect(spanValue('x'.repeat(200), 100)).toBe(omittedNote(100));
    expect(omittedNote(64 * 1024)).toBe('[omitted from the trace: larger than 64 KB]');
  });

  it('shows the small members of an input whose one member is large', () => {
    expect(spanInput({ status: 200, data: 'x'.repeat(200) }, 100)).toEqual({
      status: 200,
      data: omittedNote(100),
    });
  });
});

describe('function time limit', () => {
  const deps = depsOf(inProcessRunner());

  it('cuts a huge timeoutMs to the 60 s ceiling', () => {
    expect(functionTimeoutInMs(1_000_000_000, deps)).toBe(60_000);
  });

  it('cuts timeoutMs to a ceiling the deployment sets', () => {
    expect(functionTimeoutInMs('5000', { ...deps, functionMaxTimeoutInMs: 2000 })).toBe(2000);
  });

  it('cuts the default time limit to the ceiling too', () => {
    expect(functionTimeoutInMs(undefined, { ...deps, functionMaxTimeoutInMs: 2000 })).toBe(2000);
  });

  it('keeps a time limit under the ceiling', () => {
    expect(functionTimeoutInMs(1500, deps)).toBe(1500);
  });
});

describe('output caps', () => {
  const limits = { maxBlockOutputBytes: 1000, maxRunOutputBytes: 1500, maxSpanValueBytes: 100 };

  it('fails a block whose output is over the cap, naming the cap', async () => {
    const graph = graphOf(
      [start, block('f', 'function', 'Big', { code: 'return "x".repeat(<start.size>)' })],
      [edge('s', 'f')],
    );

    const result = await runToCompletion(
      contextOf(graph, { size: 5000 }),
      depsOf(inProcessRunner(), undefined, { limits }),
    );

    expect(result.success).toBe(false);
    expect(result.error).toBe(
      "Big: Output is larger than 1000 bytes, the limit of one block's output (MAX_BLOCK_OUTPUT_BYTES)",
    );
  });

  it('passes the block output cap to the sandbox, so a huge result stops there', async () => {
    const runner = inProcessRunner();
    const graph = graphOf([start, block('f', 'function', 'Small', { code: 'return 1' })], [edge('s', 'f')]);

    await runToCompletion(contextOf(graph), depsOf(runner, undefined, { limits }));

    expect(runner.requests[0].maxResultBytes).toBe(1000);
  });

  it('follows the error edge of a block whose output is over the cap', async () => {
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'Big', { code: 'return "x".repeat(<start.size>)' }),
        block('h', 'function', 'Handle', { code: 'return "handled: " + <big.error>' }),
      ],
      [edge('s', 'f'), edge('f', 'h', 'error')],
    );

    const result = await runToCompletion(
      contextOf(graph, { size: 5000 }),
      depsOf(inProcessRunner(), undefined, { limits }),
    );

    expect(result.success).toBe(true);
    expect((result.output as { result: string }).result).toMatch(
      /^handled: Output is larger than 1000 bytes/,
    );
  });

  it('fails the run when its output is over the run cap though each block is within its own', async () => {
    const graph = graphOf(
      [
        start,
        block('a', 'function', 'A', { code: 'return "a".repeat(900)' }),
        block('b', 'function', 'B', { code: 'return "b".repeat(900)' }),
      ],
      [edge('s', 'a'), edge('s', 'b')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner(), undefined, { limits }));

    expect(result).toMatchObject({
      success: false,
      error: "The run's output is larger than 1.5 KB, the limit of a run's output (MAX_RUN_OUTPUT_BYTES)",
    });
    expect(result.output).toBeUndefined();
  });

  it('keeps a large value once: in the output, not again in the spans that show it', async () => {
    const graph = graphOf(
      [
        start,
        block('f', 'function', 'Make', { code: 'return "x".repeat(500)' }),
        block('r', 'response', 'Reply', { data: '<make.result>' }),
      ],
      [edge('s', 'f'), edge('f', 'r')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner(), undefined, { limits }));

    expect(result.output).toBe('x'.repeat(500));
    const [, make, reply] = spansOf(result.traceSpans);
    expect(make.output).toBe(omittedNote(100));
    expect(reply.input).toEqual({ data: omittedNote(100) });
    expect(JSON.stringify(result).split('x'.repeat(500)).length - 1).toBe(1);
  });
});
