/** What a mapping of one Sim block type to ours is given and gives back. */
import type { BlockType } from '../engine/types';
import type { ImportContext, SimBlock, SimEdge, SimWorkflowState } from './types';

export interface BlockMapContext {
  sim: SimBlock;
  state: SimWorkflowState;
  /** Names of the workflow's blocks as references write them (Sim's normalization). */
  blockNames: ReadonlySet<string>;
  /** The edges leaving this block, as the file has them. */
  outgoing: SimEdge[];
  context: ImportContext;
  /** Kept going, but the user should know (the message names the setting). */
  warn(message: string): void;
  /** The block cannot run here with the same meaning; the whole import is refused. */
  refuse(reason: string): void;
}

export interface BlockMapping {
  type: BlockType;
  /** Our config; called once per block. */
  config(context: BlockMapContext): Record<string, unknown>;
  /** The handle an edge leaving this block takes here (`handle`: Sim's, already in our terms), when it differs. */
  edgeHandle?(edge: SimEdge, handle: string): string;
}

/** A secret or table that Sim's export empties on purpose: a warning naming the setting. */
export function warnIfEmptied(context: BlockMapContext, id: string, what: string, advice: string): void {
  const sub = context.sim.subBlocks?.[id];
  if (sub && typeof sub === 'object' && sub.value === null) {
    context.warn(`${what} (${id}) was emptied by Sim's export; ${advice}`);
  }
}
