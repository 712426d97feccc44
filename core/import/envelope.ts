import type { WorkflowFile } from './types';

/**
 * Accepts an object or a JSON string: Sim's export `{version, exportedAt, state:{blocks,edges,loops,parallels,variables?,metadata?}}`,
 * the `{data: …}` wrapper, the older form with blocks/edges at the root, or our own graph.
 * Throws ValidationError (400) naming what is wrong.
 */
export function readWorkflowFile(input: unknown): WorkflowFile {
  throw new Error(`not implemented yet: ${typeof input}`);
}
