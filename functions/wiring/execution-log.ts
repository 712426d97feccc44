/** The execution log's store, keeping entries for `LOG_RETENTION_DAYS`. */
import { DynamoExecutionLogStore } from '../../adapters/dynamodb/execution-log-store';
import { setting } from '../settings';
import { blobStore } from './storage';

export function executionLogStore(): DynamoExecutionLogStore {
  return DynamoExecutionLogStore.fromEnv({
    blobStore: blobStore(),
    retentionInDays: setting('LOG_RETENTION_DAYS'),
  });
}
