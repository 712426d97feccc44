import { responseHeaderNameProblem, responseHeaderValueProblem } from '../response-headers';
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
 * The headers as they will be sent, names lowercased. Saving refuses what it can see; a name or
 * value that comes from a reference is checked here, so an old graph or a run's data cannot set a
 * header off the list either.
 */
function headersOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new BlockError('Response headers must be an object');
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (header === undefined || header === null) continue;
    const text = typeof header === 'string' ? header : JSON.stringify(header);
    const problem = responseHeaderNameProblem(name) ?? responseHeaderValueProblem(name, text);
    if (problem) throw new BlockError(problem);
    headers[name.toLowerCase()] = text;
  }
  return headers;
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
