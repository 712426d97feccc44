import type { EngineDeps } from '../types';
import { functionMemoryLimitInBytes, functionTimeoutInMs } from './function';
import { BlockError, type BlockDefinition } from './types';

/**
 * Evaluates a JavaScript expression (references already inserted as literals) in the sandbox and
 * tells whether it is truthy. Loop conditions use it too.
 */
export async function evaluateExpression(
  expression: string,
  deps: EngineDeps,
  signal?: AbortSignal,
  workspaceId?: string,
): Promise<boolean> {
  // The line break keeps a trailing line comment in the expression from swallowing the paren.
  const { result } = await deps.codeRunner.run({
    code: `return (${expression}\n);`,
    timeoutInMs: functionTimeoutInMs(undefined, deps),
    memoryLimitInBytes: functionMemoryLimitInBytes(deps),
    ...(signal ? { signal } : {}),
    ...(workspaceId ? { workspaceId } : {}),
  });
  return Boolean(result);
}

interface Condition {
  id: string;
  expression: string;
}

function isElse(expression: string): boolean {
  const text = expression.trim();
  return text === '' || text === 'else';
}

function conditionsOf(value: unknown): Condition[] {
  if (!Array.isArray(value)) throw new BlockError('Condition block has no conditions');
  return value.map((entry, index) => {
    if (entry === null || typeof entry !== 'object' || typeof entry.id !== 'string') {
      throw new BlockError(`Condition ${index + 1} has no id`);
    }
    return { id: entry.id, expression: typeof entry.expression === 'string' ? entry.expression : '' };
  });
}

/**
 * Tries its conditions in order and follows the edge of the first that holds (`condition-<id>`).
 * Each expression is JavaScript evaluated in the sandbox, references inserted as JSON literals.
 */
export const conditionBlock: BlockDefinition = {
  type: 'condition',
  resolveInputs: (block, resolve) => ({
    conditions: conditionsOf(block.config.conditions).map((condition) => ({
      id: condition.id,
      expression: isElse(condition.expression) ? condition.expression : resolve.code(condition.expression),
    })),
  }),
  async execute(inputs, { deps, signal, context }) {
    for (const condition of inputs.conditions as Condition[]) {
      if (isElse(condition.expression)) {
        return {
          output: { selectedOption: condition.id, conditionResult: false },
          selectedHandles: [`condition-${condition.id}`],
        };
      }
      let holds: boolean;
      try {
        holds = await evaluateExpression(condition.expression, deps, signal, context.workspaceId);
      } catch (error) {
        throw new BlockError(
          `Condition "${condition.id}" failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (holds) {
        return {
          output: { selectedOption: condition.id, conditionResult: true },
          selectedHandles: [`condition-${condition.id}`],
        };
      }
    }
    // Nothing holds and there is no else: the workflow simply has no path on from here.
    return { output: { selectedOption: null, conditionResult: false }, selectedHandles: [] };
  },
};
