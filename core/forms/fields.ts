/** The page's fields: the deployed Start block's input format, with the form's label and description overrides. */
import { startInputFormat } from '../engine/input';
import type { WorkflowGraph } from '../engine/types';
import type { FormField, FormFieldOverride } from './types';

/** `customerEmail` and `customer_email` read as "Customer email" when the form gives no label. */
export function labelOf(name: string): string {
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function formFieldsOf(
  graph: WorkflowGraph,
  overrides: Record<string, FormFieldOverride> = {},
): FormField[] {
  return startInputFormat(graph).map((input) => {
    const override = Object.hasOwn(overrides, input.name) ? overrides[input.name] : {};
    const description = override.description ?? input.description;
    return {
      name: input.name,
      type: input.type,
      label: override.label ?? labelOf(input.name),
      ...(description ? { description } : {}),
      required: input.required === true,
      ...(input.default === undefined || input.default === null ? {} : { default: input.default }),
    };
  });
}
