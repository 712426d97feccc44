import type { Block } from '../types';
import { BlockError, type BlockDefinition } from './types';

interface Assignment {
  name: string;
  value: unknown;
}

/** `[{name, value}]`; `variableName` is accepted for `name`, as some editors save it. */
function assignmentsOf(block: Block): Assignment[] {
  const { assignments } = block.config;
  if (assignments === undefined) return [];
  if (!Array.isArray(assignments))
    throw new BlockError('Variables assignments must be a list of {name, value}');
  return assignments.map((entry, index) => {
    const name = entry?.name ?? entry?.variableName;
    if (typeof name !== 'string' || name.trim() === '') {
      throw new BlockError(`Variable assignment ${index + 1} has no name`);
    }
    return { name: name.trim(), value: entry.value };
  });
}

/**
 * Sets workflow variables: each value resolved like any config value, then readable as
 * `<variable.name>` by every block that runs later in the same workflow (inside loops and
 * parallels too; when parallel branches set the same name, the last one to finish wins). The block's
 * output is the assigned values by name. Assignments in one block all see the variables as they
 * were before the block.
 */
export const variablesBlock: BlockDefinition = {
  type: 'variables',
  resolveInputs: (block, resolve) => ({
    assignments: assignmentsOf(block).map(({ name, value }) => ({ name, value: resolve.value(value) })),
  }),
  async execute(inputs) {
    const variables: Record<string, unknown> = {};
    for (const { name, value } of inputs.assignments as Assignment[]) variables[name] = value;
    return { output: variables, variables };
  },
};
