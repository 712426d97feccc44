/**
 * Model keys written into a graph as they are (an agent or router block's `apiKey: "sk-…"`). The
 * graph is shown to every member who may read the workflow and its runs, so such a key is never
 * shown: reads see `"set"` in its place, a save that sends `"set"` back keeps the stored key, and
 * the save is told that a `{{ENV_VAR}}` reference is the safe way.
 */
import type { Block, WorkflowGraph } from '../engine/types';

/** What a read shows in place of a key written out. */
export const maskedModelKey = 'set';

/** `{{ENV}}` and `<block.path>` references: what a key may be written as without being one. */
const referencePattern = /\{\{[^{}]*\}\}|<[^<>]*>/g;
const anyReference = /\{\{[^{}]*\}\}|<[^<>]*>/;

/** A key with any text of its own besides references (`sk-…`, or `sk-{{SUFFIX}}`). */
export function isLiteralModelKey(value: unknown): value is string {
  return typeof value === 'string' && value.replace(referencePattern, '').trim() !== '';
}

function hasLiteralKey(block: Block): boolean {
  const key = block.config?.apiKey;
  return isLiteralModelKey(key) && key !== maskedModelKey;
}

/** The graph as readers see it: every literal `apiKey` replaced by `"set"`; the same object when there is none. */
export function maskModelKeys(graph: WorkflowGraph): WorkflowGraph {
  const blocks = Object.values(graph.blocks ?? {});
  if (!blocks.some(hasLiteralKey)) return graph;
  const masked: Record<string, Block> = {};
  for (const block of blocks) {
    masked[block.id] = hasLiteralKey(block)
      ? { ...block, config: { ...block.config, apiKey: maskedModelKey } }
      : block;
  }
  return { ...graph, blocks: masked };
}

/**
 * `next` with the stored key of each block whose `apiKey` came back as `"set"`: a client that saves
 * the graph it read (masked) keeps the keys it could not see.
 */
export function keepMaskedModelKeys(next: WorkflowGraph, current: WorkflowGraph): WorkflowGraph {
  const blocks = next.blocks;
  if (blocks === null || typeof blocks !== 'object') return next;
  let kept: Record<string, Block> | undefined;
  for (const [id, block] of Object.entries(blocks)) {
    if (block?.config?.apiKey !== maskedModelKey) continue;
    const stored = current.blocks?.[id]?.config?.apiKey;
    if (!isLiteralModelKey(stored)) continue;
    kept ??= { ...blocks };
    kept[id] = { ...block, config: { ...block.config, apiKey: stored } };
  }
  return kept ? { ...next, blocks: kept } : next;
}

/** The keys written out whole (no reference in them), to redact from what a run answers and logs. */
export function literalModelKeysOf(graph: WorkflowGraph): string[] {
  const keys: string[] = [];
  for (const block of Object.values(graph.blocks ?? {})) {
    const key = block.config?.apiKey;
    if (isLiteralModelKey(key) && !anyReference.test(key)) keys.push(key);
  }
  return keys;
}

export interface ModelKeyWarning {
  blockId: string;
  blockName: string;
  blockType: string;
  kind: 'literalApiKey';
  message: string;
}

/**
 * One warning per block of a saved graph with a key written out (`"set"` included: it keeps the
 * stored key), for the save's answer.
 */
export function literalModelKeyWarnings(graph: WorkflowGraph): ModelKeyWarning[] {
  return Object.entries(graph.blocks ?? {})
    .filter(([, block]) => isLiteralModelKey(block?.config?.apiKey))
    .map(([id, block]) => ({
      blockId: id,
      blockName: block.name,
      blockType: block.type,
      kind: 'literalApiKey',
      message: `Block "${block.name}" has its apiKey written out: it is stored with the workflow (reads show "${maskedModelKey}"). Keep the key in an environment variable and write {{MY_MODEL_KEY}} instead.`,
    }));
}
