import { Logger } from '@aws-lambda-powertools/logger';

/** One structured JSON logger per function; handlers add keys such as the execution id. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'workflow-service' });
