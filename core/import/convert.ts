import type { ConvertedWorkflow, ImportContext, WorkflowFile } from './types';

/** Throws UnsupportedWorkflowError (422 UNSUPPORTED_WORKFLOW) listing EVERY offending block. */
export function convertWorkflowFile(file: WorkflowFile, context: ImportContext): ConvertedWorkflow {
  void context;
  throw new Error(`not implemented yet: ${file.kind}`);
}
