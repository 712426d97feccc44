/**
 * Sim's `loop` and `parallel` containers. Their settings live in `data` (`loopType`, `count`,
 * `collection`, `whileCondition`, `doWhileCondition`, `parallelType`), older files also in
 * `state.loops` / `state.parallels`; children name their container in `data.parentId`.
 *
 * Edges: Sim leaves a container by `loop-end-source` / `parallel-end-source` (ours: `source`) and
 * enters its body by `loop-start-source` / `parallel-start-source`, which is kept: an edge from a
 * container to its child marks where the body starts here too.
 */
import type { Block } from '../engine/types';
import type { BlockMapContext, BlockMapping } from './mapping';
import { simReferenceName } from './references';
import { isRecord, numberValue } from './sim-values';
import type { SimBlock, SimWorkflowState } from './types';

/** Sim's defaults for a container that does not say. */
const simDefaultIterations = 5;
const simDefaultParallelCount = 5;

export const containerStartHandles: readonly string[] = ['loop-start-source', 'parallel-start-source'];
export const containerEndHandles: readonly string[] = ['loop-end-source', 'parallel-end-source'];

/** The container a Sim block sits in, if any. */
export function simParentId(block: SimBlock): string | undefined {
  const parent = block.data?.parentId ?? block.parentId;
  return typeof parent === 'string' && parent !== '' ? parent : undefined;
}

function settingsOf(context: BlockMapContext, kind: 'loops' | 'parallels'): Record<string, unknown> {
  const legacy = (context.state as SimWorkflowState)[kind]?.[context.sim.id];
  return { ...(isRecord(legacy) ? legacy : {}), ...(isRecord(context.sim.data) ? context.sim.data : {}) };
}

/** A collection as Sim's editor holds it: a list, a reference, or text of a list (JSON, or with single quotes). */
function collectionOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text.startsWith('<') || text.startsWith('{{')) return text;
  for (const candidate of [text, text.replace(/'/g, '"')]) {
    try {
      return JSON.parse(candidate);
    } catch {
      // Not JSON: try the next reading, else keep the text (the run then says what is wrong).
    }
  }
  return value;
}

function countOf(value: unknown, fallback: number): unknown {
  if (value === undefined || value === null || value === '' || value === 0) return fallback;
  return numberValue(value) ?? value;
}

export const loopMapping: BlockMapping = {
  type: 'loop',
  config(context) {
    const settings = settingsOf(context, 'loops');
    const loopType = typeof settings.loopType === 'string' ? settings.loopType : 'for';
    switch (loopType) {
      case 'for':
        return { loopType, iterations: countOf(settings.count ?? settings.iterations, simDefaultIterations) };
      case 'forEach':
        return { loopType, forEachItems: collectionOf(settings.collection ?? settings.forEachItems ?? '') };
      case 'while':
      case 'doWhile': {
        const condition = settings[`${loopType}Condition`];
        if (typeof condition !== 'string' || condition.trim() === '')
          context.refuse(`its ${loopType} loop has no condition`);
        return { loopType, condition: typeof condition === 'string' ? condition : '' };
      }
      default:
        context.refuse(`its loop type "${loopType}" is unknown`);
        return { loopType };
    }
  },
};

export const parallelMapping: BlockMapping = {
  type: 'parallel',
  config(context) {
    const settings = settingsOf(context, 'parallels');
    const parallelType = typeof settings.parallelType === 'string' ? settings.parallelType : 'count';
    if (parallelType === 'count') {
      return { parallelType, count: countOf(settings.count, simDefaultParallelCount) };
    }
    if (parallelType === 'collection') {
      return { parallelType, collection: collectionOf(settings.collection ?? settings.distribution ?? '') };
    }
    context.refuse(`its parallel type "${parallelType}" is unknown`);
    return { parallelType };
  },
};

/**
 * Sim's `results` of a loop or parallel holds, per iteration or branch, the outputs of every block of
 * the body; ours, the output of the body's last block. The blocks that read them, and how to say so.
 */
export function readersOfContainerResults(
  blocks: Record<string, Block>,
): Array<{ block: Block; difference: string }> {
  const containers = Object.values(blocks).filter(
    (block) => block.type === 'loop' || block.type === 'parallel',
  );
  if (containers.length === 0) return [];
  const readers: Array<{ block: Block; difference: string }> = [];
  for (const block of Object.values(blocks)) {
    const text = JSON.stringify(block.config).toLowerCase();
    for (const container of containers) {
      const reference = `<${simReferenceName(container.name)}.results`;
      if (!text.includes(reference)) continue;
      const unit = container.type === 'loop' ? 'iteration' : 'branch';
      readers.push({
        block,
        difference: `${reference}> differs from Sim: there each ${unit} gives a list of the outputs of all its blocks, here the output of its last block (several last blocks: an object keyed by their names)`,
      });
    }
  }
  return readers;
}
