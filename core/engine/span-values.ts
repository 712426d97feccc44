/**
 * What a trace span shows of a block's input and output. A span refers to the same value as the
 * block's output, but every copy of the trace (checkpoint, log entry, sync answer) serializes it
 * again: a large value would be stored and sent several times over. Above the cap a span shows a
 * note of the value's size instead; the value itself stays in the block's output (and in the run's
 * output when it is the answer).
 */
import { formatBytes, jsonSizeInBytes } from './json-size';

export function omittedNote(capInBytes: number): string {
  return `[omitted from the trace: larger than ${formatBytes(capInBytes)}]`;
}

export function spanValue(value: unknown, capInBytes: number): unknown {
  return jsonSizeInBytes(value, capInBytes) > capInBytes ? omittedNote(capInBytes) : value;
}

/** Inputs are shown member by member, so the small members of a block with one large one stay visible. */
export function spanInput(input: Record<string, unknown>, capInBytes: number): Record<string, unknown> {
  if (jsonSizeInBytes(input, capInBytes) <= capInBytes) return input;
  const shown: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) shown[name] = spanValue(value, capInBytes);
  return shown;
}
