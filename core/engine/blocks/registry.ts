/** Block types the engine can run. A new type is a module in this folder and one line here. */
import { conditionBlock } from './condition';
import { functionBlock } from './function';
import { responseBlock } from './response';
import { startBlock } from './start';
import { BlockError, type BlockDefinition } from './types';

const definitions: ReadonlyMap<string, BlockDefinition> = new Map(
  [startBlock, functionBlock, conditionBlock, responseBlock].map((definition) => [
    definition.type,
    definition,
  ]),
);

export function supportedBlockTypes(): string[] {
  return [...definitions.keys()];
}

/** A type the graph format knows but this engine does not run yet fails when it is reached. */
export function blockDefinition(type: string): BlockDefinition {
  return (
    definitions.get(type) ?? {
      type,
      async execute() {
        throw new BlockError(`Block type "${type}" is not supported yet`);
      },
    }
  );
}
