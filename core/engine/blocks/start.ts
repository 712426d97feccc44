import type { BlockDefinition } from './types';

/** Hands the run input to the graph: each field by name, and all of them as `input`. */
export const startBlock: BlockDefinition = {
  type: 'start',
  resolveInputs: (_block, _resolve, run) => run.context.input,
  async execute(inputs) {
    return { output: { ...inputs, input: inputs } };
  },
};
