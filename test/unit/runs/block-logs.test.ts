import { describe, expect, it } from 'vitest';
import type { TraceSpan } from '../../../core/engine/types';
import { blockLogsOf } from '../../../core/runs/block-logs';

function span(fields: Partial<TraceSpan> & Pick<TraceSpan, 'id' | 'type'>): TraceSpan {
  return {
    name: fields.id,
    startTime: '2026-11-28T10:00:00.000Z',
    endTime: '2026-11-28T10:00:00.005Z',
    duration: 5,
    status: 'success',
    ...fields,
  };
}

describe('blockLogsOf', () => {
  it('lists every executed block in trace order with name, type, start, end, duration, success and error', () => {
    // Prepare: a run with a loop of two iterations, each running one function block
    const iteration = (index: number, status: 'success' | 'error') =>
      span({
        id: `it${index}`,
        type: 'loop-iteration',
        blockId: 'loop',
        children: [
          span({
            id: `f${index}`,
            blockId: 'fn',
            name: 'Fn',
            type: 'function',
            status,
            ...(status === 'error' ? { error: 'boom' } : {}),
          }),
        ],
      });
    const root = span({
      id: 'run',
      type: 'workflow',
      children: [
        span({ id: 'start', blockId: 'start', name: 'Start', type: 'start' }),
        span({
          id: 'loop',
          blockId: 'loop',
          name: 'Each',
          type: 'loop',
          children: [iteration(0, 'success'), iteration(1, 'error')],
        }),
      ],
    });

    // Act
    const logs = blockLogsOf([root]);

    // Assess
    expect(logs.map((log) => [log.blockName, log.blockType, log.success])).toEqual([
      ['Start', 'start', true],
      ['Each', 'loop', true],
      ['Fn', 'function', true],
      ['Fn', 'function', false],
    ]);
    expect(logs[3]).toEqual({
      blockId: 'fn',
      blockName: 'Fn',
      blockType: 'function',
      startedAt: '2026-11-28T10:00:00.000Z',
      endedAt: '2026-11-28T10:00:00.005Z',
      durationMs: 5,
      success: false,
      error: 'boom',
    });
    expect(logs[0]).not.toHaveProperty('error');
  });

  it('holds an error to the cap of a value shown in the trace', () => {
    // Prepare
    const root = span({
      id: 'run',
      type: 'workflow',
      children: [
        span({ id: 'f', blockId: 'f', type: 'function', status: 'error', error: 'x'.repeat(2_000) }),
      ],
    });

    // Act
    const [log] = blockLogsOf([root], 1_024);

    // Assess
    expect(log?.error).toBe('[omitted from the trace: larger than 1 KB]');
  });
});
