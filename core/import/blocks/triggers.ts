/** Sim's start and trigger blocks: all become our `start` block, their input format its own. */
import { normalizeInputFieldType } from '../../engine/graph';
import type { InputField } from '../../engine/types';
import type { BlockMapContext, BlockMapping } from '../mapping';
import { arrayValue, isRecord, subText, subValue } from '../sim-values';

export const simTriggerTypes: readonly string[] = [
  'starter',
  'start_trigger',
  'api_trigger',
  'input_trigger',
  'manual_trigger',
];

function inputFormatOf(context: BlockMapContext): InputField[] {
  const rows = arrayValue(subValue(context.sim, 'inputFormat')) ?? [];
  const fields: InputField[] = [];
  rows.forEach((row, index) => {
    if (!isRecord(row)) return;
    const name = typeof row.name === 'string' ? row.name.trim() : '';
    if (name === '') return;
    const type = normalizeInputFieldType(row.type);
    if (type === undefined) {
      context.refuse(
        `input field ${index + 1} ("${name}") has type ${JSON.stringify(row.type)}, which has no counterpart here`,
      );
      return;
    }
    fields.push({
      name,
      type,
      ...(row.required === true ? { required: true } : {}),
      ...(typeof row.description === 'string' && row.description !== ''
        ? { description: row.description }
        : {}),
    });
  });
  return fields;
}

export const triggerMapping: BlockMapping = {
  type: 'start',
  config(context) {
    if (context.sim.type === 'starter' && (subText(context.sim, 'startWorkflow') ?? 'manual') !== 'manual') {
      context.refuse(
        `its start mode "${subText(context.sim, 'startWorkflow')}" has no counterpart here (only "manual", which takes input through the API)`,
      );
    }
    const inputFormat = inputFormatOf(context);
    return inputFormat.length > 0 ? { inputFormat } : {};
  },
};
