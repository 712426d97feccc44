// Starts a document worker from the TypeScript sources (npm start, tests): Lambda bundles start
// themselves instead, as plain JavaScript (see document-reader.ts).
import { register } from 'tsx/esm/api';

register();
await import('./extract-worker.ts');
