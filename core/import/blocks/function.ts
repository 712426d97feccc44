/** Sim's `function` block, JavaScript only. */
import type { BlockMapping } from '../mapping';
import { rewriteCodePlaceholders } from '../references';
import { numberValue, subText, subValue } from '../sim-values';

export const functionMapping: BlockMapping = {
  type: 'function',
  config(context) {
    const language = subText(context.sim, 'language') ?? 'javascript';
    if (language !== 'javascript') {
      context.refuse(`its code is ${language}; functions here run JavaScript only`);
    }
    const sandbox = subText(context.sim, 'sandboxId');
    if (sandbox !== undefined) {
      context.refuse(
        `it runs in the Sim sandbox "${sandbox}" (its packages and tools are not available here)`,
      );
    }
    const code = subText(context.sim, 'code') ?? '';
    const timeoutMs = numberValue(subValue(context.sim, 'timeout'));
    return {
      code: rewriteCodePlaceholders(code, context.blockNames),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    };
  },
};
