/**
 * The `logs` of a sync answer, as the interface's result lists them: one entry per executed block,
 * in the order of the trace, with its name, type, start, end, duration, success and error. Made from
 * the trace spans, so they say nothing the trace does not; an error is held to the cap of a value
 * shown in the trace, so the logs never make an answer larger than its trace already is.
 */
import { defaultLimits } from '../engine/limits';
import { spanValue } from '../engine/span-values';
import type { TraceSpan } from '../engine/types';

export interface BlockLog {
  blockId: string;
  blockName: string;
  blockType: string;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  success: boolean;
  error?: string;
}

/** Spans that group blocks (the run, an iteration, a branch) rather than being one. */
const groupingSpanTypes = new Set(['workflow', 'loop-iteration', 'parallel-branch']);

export function blockLogsOf(
  spans: readonly TraceSpan[],
  maxErrorBytes: number = defaultLimits.maxSpanValueBytes,
): BlockLog[] {
  const logs: BlockLog[] = [];
  const visit = (span: TraceSpan) => {
    if (span.blockId !== undefined && !groupingSpanTypes.has(span.type)) {
      logs.push({
        blockId: span.blockId,
        blockName: span.name,
        blockType: span.type,
        startedAt: span.startTime,
        endedAt: span.endTime,
        durationMs: span.duration,
        success: span.status === 'success',
        ...(span.error === undefined ? {} : { error: spanValue(span.error, maxErrorBytes) as string }),
      });
    }
    for (const child of span.children ?? []) visit(child);
  };
  for (const span of spans) visit(span);
  return logs;
}
