/**
 * What a loop or parallel block will do, from its resolved config: how many
 * iterations or branches, the item of each, and for `while`/`doWhile` the condition. The step runner
 * (step/loops-and-parallels.ts) runs the body; this module only reads config, so graph validation shares it.
 */
import { BlockError, type ConfigResolver } from './blocks/types';
import type { Block, EngineLimits } from './types';

export const loopTypes = ['for', 'forEach', 'while', 'doWhile'] as const;
export const parallelTypes = ['count', 'collection'] as const;
export type LoopType = (typeof loopTypes)[number];
export type ParallelType = (typeof parallelTypes)[number];

export interface ContainerPlan {
  kind: 'loop' | 'parallel';
  mode: LoopType | ParallelType;
  /** Iterations or branches, when known before the first one runs (all but `while`, `doWhile`). */
  total?: number;
  /** The item of each iteration or branch (`forEach`, `collection`): `<loop.currentItem>`. */
  items?: unknown[];
  /** What `<loop.items>` / `<parallel.items>` give: the collection as configured. */
  collection?: unknown;
  /** `while`/`doWhile`: the expression as written; references resolve at each evaluation. */
  condition?: string;
}

/** The loop type a config names; a missing one is `for`. Unknown names are `undefined`. */
export function loopTypeOf(config: Record<string, unknown>): LoopType | undefined {
  const type = config.loopType ?? 'for';
  return loopTypes.find((known) => known === type);
}

/** The parallel type a config names; a missing one is `count`. Unknown names are `undefined`. */
export function parallelTypeOf(config: Record<string, unknown>): ParallelType | undefined {
  const type = config.parallelType ?? 'count';
  return parallelTypes.find((known) => known === type);
}

/** A whole number of at least zero, from a number or numeric text; `undefined` otherwise. */
export function countFrom(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 ? number : undefined;
}

/** Whether a config value is written out (no reference, no `{{NAME}}`), so it can be checked before a run. */
export function isLiteral(value: unknown): boolean {
  return typeof value === 'number' || (typeof value === 'string' && !/[<{]/.test(value));
}

/**
 * The items of a collection: an array as it is, an object as its `[key, value]` entries, and JSON
 * text of either parsed first.
 */
export function itemsFrom(value: unknown, what: string): { items: unknown[]; collection: unknown } {
  let collection = value;
  if (typeof collection === 'string') {
    try {
      collection = JSON.parse(collection);
    } catch {
      throw new BlockError(
        `${what} must be an array, an object, or JSON text of one; got text that is not JSON`,
      );
    }
  }
  if (Array.isArray(collection)) return { items: collection, collection };
  if (collection !== null && typeof collection === 'object') {
    return { items: Object.entries(collection), collection };
  }
  throw new BlockError(
    `${what} must be an array, an object, or JSON text of one; got ${collection === undefined ? 'nothing' : JSON.stringify(collection)}`,
  );
}

/** The config a container's span shows and its plan reads: resolved, except the condition, which is resolved per evaluation. */
export function resolveContainerInputs(block: Block, resolve: ConfigResolver): Record<string, unknown> {
  const { condition, ...rest } = block.config;
  const inputs = resolve.value(rest) as Record<string, unknown>;
  if (condition !== undefined) inputs.condition = condition;
  return inputs;
}

function countOrFail(value: unknown, what: string): number {
  const count = countFrom(value);
  if (count === undefined) {
    throw new BlockError(
      `${what} must be a whole number of at least 0; got ${value === undefined ? 'nothing' : JSON.stringify(value)}`,
    );
  }
  return count;
}

function loopPlan(inputs: Record<string, unknown>, limits: EngineLimits): ContainerPlan {
  const mode = loopTypeOf(inputs);
  const cap = limits.maxLoopIterations;
  if (mode === undefined) {
    throw new BlockError(
      `Unknown loop type ${JSON.stringify(inputs.loopType)}; known: ${loopTypes.join(', ')}`,
    );
  }
  if (mode === 'for') {
    const total = countOrFail(inputs.iterations, 'Loop iterations');
    if (total > cap) throw new BlockError(`Loop runs ${total} iterations, more than the limit of ${cap}`);
    return { kind: 'loop', mode, total };
  }
  if (mode === 'forEach') {
    const { items, collection } = itemsFrom(inputs.forEachItems, 'Loop forEachItems');
    if (items.length > cap) {
      throw new BlockError(`Loop over ${items.length} items is more than the limit of ${cap} iterations`);
    }
    return { kind: 'loop', mode, total: items.length, items, collection };
  }
  const condition = typeof inputs.condition === 'string' ? inputs.condition.trim() : '';
  if (condition === '') throw new BlockError(`A ${mode} loop needs a condition`);
  return { kind: 'loop', mode, condition };
}

function parallelPlan(inputs: Record<string, unknown>, limits: EngineLimits): ContainerPlan {
  const mode = parallelTypeOf(inputs);
  const cap = limits.maxParallelBranches;
  if (mode === undefined) {
    throw new BlockError(
      `Unknown parallel type ${JSON.stringify(inputs.parallelType)}; known: ${parallelTypes.join(', ')}`,
    );
  }
  if (mode === 'count') {
    const total = countOrFail(inputs.count, 'Parallel count');
    if (total > cap) throw new BlockError(`Parallel runs ${total} branches, more than the limit of ${cap}`);
    return { kind: 'parallel', mode, total };
  }
  const { items, collection } = itemsFrom(inputs.collection, 'Parallel collection');
  if (items.length > cap) {
    throw new BlockError(`Parallel over ${items.length} items is more than the limit of ${cap} branches`);
  }
  return { kind: 'parallel', mode, total: items.length, items, collection };
}

/** Reads a container's resolved config; throws a `BlockError` saying what is wrong. */
export function planContainer(
  type: 'loop' | 'parallel',
  inputs: Record<string, unknown>,
  limits: EngineLimits,
): ContainerPlan {
  return type === 'loop' ? loopPlan(inputs, limits) : parallelPlan(inputs, limits);
}
