export * from '../../../support/model-servers';
export { useModelServer } from './use';
export { useDeploymentModelServers } from './deployment';
