/** Which mapping each Sim block type takes; a type not listed has no counterpart here. */
import { loopMapping, parallelMapping } from '../containers';
import type { BlockMapping } from '../mapping';
import { apiMapping } from './api';
import { conditionMapping, variablesMapping, waitMapping } from './flow';
import { functionMapping } from './function';
import { agentMapping, legacyRouterMapping, routerV2Mapping } from './models';
import { responseMapping } from './response';
import { simTriggerTypes, triggerMapping } from './triggers';
import { workflowMapping } from './workflow';

export { simTriggerTypes };

const mappings: Record<string, BlockMapping> = {
  ...Object.fromEntries(simTriggerTypes.map((type) => [type, triggerMapping])),
  function: functionMapping,
  agent: agentMapping,
  condition: conditionMapping,
  router: legacyRouterMapping,
  router_v2: routerV2Mapping,
  api: apiMapping,
  response: responseMapping,
  wait: waitMapping,
  workflow: workflowMapping,
  workflow_input: workflowMapping,
  variables: variablesMapping,
  loop: loopMapping,
  parallel: parallelMapping,
};

export function mappingOf(type: string): BlockMapping | undefined {
  return Object.hasOwn(mappings, type) ? mappings[type] : undefined;
}

/** Sim types that are only notes on the canvas: dropped with a warning. */
export const droppedTypes: readonly string[] = ['note'];
