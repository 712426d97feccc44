export * from '../../../support/model-servers';
export { useModelServer } from './use';
