/**
 * The caps on what a run produces: each block's output (MAX_BLOCK_OUTPUT_BYTES), beyond which the
 * block fails, and the run's output (MAX_RUN_OUTPUT_BYTES), beyond which the run does.
 */
import { formatBytes, jsonSizeInBytes } from '../json-size';
import type { EngineLimits } from '../types';

/**
 * The size of a block's output, measured up to the block cap so that one measurement serves both the
 * cap and what the block's span may show. The Start block hands on the run's input (bounded by the
 * request body's limit) with each field twice, by name and in `input`: measured once, so any input
 * the API takes can start.
 */
export function blockOutputBytes(type: string, output: unknown, limits: EngineLimits): number {
  const made = type === 'start' ? (output as { input?: unknown }).input : output;
  return jsonSizeInBytes(made, limits.maxBlockOutputBytes);
}

export function blockOutputTooLarge(limits: EngineLimits): string {
  return `Output is larger than ${formatBytes(limits.maxBlockOutputBytes)}, the limit of one block's output (MAX_BLOCK_OUTPUT_BYTES)`;
}

/** The error of a run whose output is over the cap; undefined when it is within. */
export function runOutputError(output: unknown, limits: EngineLimits): string | undefined {
  const cap = limits.maxRunOutputBytes;
  if (jsonSizeInBytes(output, cap) <= cap) return undefined;
  return `The run's output is larger than ${formatBytes(cap)}, the limit of a run's output (MAX_RUN_OUTPUT_BYTES)`;
}
