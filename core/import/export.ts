import type { WorkflowGraph } from '../engine/types';
import type { ImportWarning } from './types';

/** Sim export, version '1.0', of the blocks that have a Sim counterpart; Sim's importer (parseWorkflowJson) accepts it. */
export function toSimExport(workflow: { name: string; description?: string; graph: WorkflowGraph }): {
  document: unknown;
  warnings: ImportWarning[];
} {
  throw new Error(`not implemented yet: ${workflow.name}`);
}
