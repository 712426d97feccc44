/** Block types the engine can run. A new type is a module in this folder and one line here. */
import { agentBlock } from './agent';
import { apiBlock } from './api';
import { conditionBlock } from './condition';
import { fileBlock } from './file';
import { functionBlock } from './function';
import { responseBlock } from './response';
import { routerBlock } from './router';
import { startBlock } from './start';
import { BlockError, type BlockDefinition } from './types';
import { variablesBlock } from './variables';
import { waitBlock } from './wait';

const definitions: ReadonlyMap<string, BlockDefinition> = new Map(
  [
    startBlock,
    functionBlock,
    conditionBlock,
    responseBlock,
    waitBlock,
    variablesBlock,
    agentBlock,
    routerBlock,
    apiBlock,
    fileBlock,
  ].map((definition) => [definition.type, definition]),
);

/** Run by the step runner itself (step/), not through a definition. */
const scheduledTypes = ['loop', 'parallel', 'workflow'];

export function supportedBlockTypes(): string[] {
  return [...definitions.keys(), ...scheduledTypes];
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
