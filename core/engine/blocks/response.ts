import { responseHeadersFrom } from '../response-headers';
import { BlockError, type BlockDefinition } from './types';

function statusOf(value: unknown): number {
  if (value === undefined || value === null || value === '') return 200;
  const status = typeof value === 'string' ? Number(value.trim()) : value;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
    throw new BlockError(
      `Response status must be an HTTP status code from 200 to 599, not ${JSON.stringify(value)}`,
    );
  }
  return status;
}

/**
 * The headers as they will be sent, names lowercased; a name or value that comes from a reference
 * is checked here, so an old graph or a run's data cannot set a header off the list either. A value
 * that a reference filled with a line break is the caller's data at fault: a 400 naming the header.
 */
function headersOf(value: unknown): Record<string, string> {
  const made = responseHeadersFrom(value);
  if ('problem' in made) throw new BlockError(made.problem, made.inValue ? { httpStatus: 400 } : {});
  return made.headers;
}

/** Ends the run: its `data` is the caller's output and `status` the HTTP status. */
export const responseBlock: BlockDefinition = {
  type: 'response',
  async execute(inputs) {
    const response = {
      data: inputs.data,
      status: statusOf(inputs.status),
      headers: headersOf(inputs.headers),
    };
    return { output: response, response };
  },
};
