/** The engine's public surface, for handlers and adapters. */
export * from './cost';
export * from './graph';
export * from './input';
export * from './limits';
export * from './references';
export * from './run';
export type * from './types';
export type { BlockDefinition, BlockOutcome, ResponseData } from './blocks/types';
