/**
 * Import and export between Sim's workflow JSON and our graph. Pure: no AWS SDK, no I/O.
 * One file per concern: envelope.ts (reading a file), convert.ts (Sim → ours: blocks/ has one
 * mapping per block family, containers.ts the loops and parallels, references.ts what differs in
 * reference syntax, workflow-variables.ts Sim's variables), export.ts (ours → Sim).
 */
export { convertWorkflowFile } from './convert';
export { readWorkflowFile } from './envelope';
export { toSimExport } from './export';
export {
  type ConvertedWorkflow,
  type ImportContext,
  type ImportWarning,
  type SimBlock,
  type SimEdge,
  type SimVariable,
  type SimWorkflowState,
  type UnsupportedBlock,
  type UnsupportedBlockDetail,
  UnsupportedWorkflowError,
  type WorkflowFile,
} from './types';
