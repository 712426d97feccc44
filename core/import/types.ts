/**
 * The contract of workflow import and export between Sim's JSON format and our graph
 * (docs/workflows.md). Pure: no I/O, no AWS SDK.
 */
import { type ErrorDetail, ServiceError } from '../errors';
import type { WorkflowGraph } from '../engine/types';

/** Something the import kept going past, but which the user should know (a dropped note, an emptied secret). */
export type ImportWarning = { blockId?: string; message: string };

/** Sim's block as its export writes it (`state.blocks[id]`). */
export interface SimBlock {
  id: string;
  type: string;
  name: string;
  position?: { x: number; y: number };
  subBlocks: Record<string, { id: string; type: string; value: unknown }>;
  outputs: Record<string, unknown>;
  enabled: boolean;
  horizontalHandles?: boolean;
  advancedMode?: boolean;
  triggerMode?: boolean;
  height?: number;
  data?: Record<string, unknown>;
  [member: string]: unknown;
}

export interface SimEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
  type?: string;
  [member: string]: unknown;
}

/** Sim's workflow variable (`state.variables[id]`). */
export interface SimVariable {
  id: string;
  name: string;
  type: string;
  value: unknown;
  [member: string]: unknown;
}

/** The `state` of Sim's export, after the envelope is taken off. */
export interface SimWorkflowState {
  blocks: Record<string, SimBlock>;
  edges: SimEdge[];
  loops: Record<string, unknown>;
  parallels: Record<string, unknown>;
  variables?: Record<string, SimVariable>;
  metadata?: Record<string, unknown>;
}

/** A workflow file, recognised by readWorkflowFile. */
export type WorkflowFile =
  | { kind: 'sim'; state: SimWorkflowState; name?: string; description?: string; sourceId?: string }
  | { kind: 'graph'; graph: WorkflowGraph; name?: string; description?: string };

/** What the caller knows of the target workspace: where a child `workflow` block's reference points. */
export type ImportContext = {
  /** The id, in the target workspace, of the source workspace's workflow `ref`; undefined if unknown. */
  childWorkflowId(ref: { id: string; name?: string }): string | undefined;
};

export type ConvertedWorkflow = {
  graph: WorkflowGraph;
  name?: string;
  description?: string;
  warnings: ImportWarning[];
};

/** One block the import cannot run here, and why. */
export interface UnsupportedBlock {
  id: string;
  name: string;
  type: string;
  reason: string;
}

/** An entry of the 422's `details`: where (`blocks.<id>`), why, and the block's id, name and type. */
export interface UnsupportedBlockDetail extends ErrorDetail {
  blockId: string;
  name: string;
  type: string;
}

/** The workflow holds blocks or settings that cannot run here with the same meaning; nothing is stored. */
export class UnsupportedWorkflowError extends ServiceError {
  override name = 'UnsupportedWorkflowError';
  readonly blocks: UnsupportedBlock[];

  constructor(blocks: UnsupportedBlock[], options?: { cause?: unknown }) {
    const details: UnsupportedBlockDetail[] = blocks.map((block) => ({
      path: `blocks.${block.id}`,
      message: block.reason,
      blockId: block.id,
      name: block.name,
      type: block.type,
    }));
    super(
      `The workflow has ${blocks.length} block${blocks.length === 1 ? '' : 's'} that cannot run here: ${blocks
        .map((block) => `${block.name} (${block.type}): ${block.reason}`)
        .join('; ')}`,
      422,
      'UNSUPPORTED_WORKFLOW',
      { ...options, details },
    );
    this.blocks = blocks;
  }
}
