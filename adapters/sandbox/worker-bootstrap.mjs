// Starts a sandbox worker from the TypeScript sources (npm start, tests): Lambda bundles start
// themselves instead, as plain JavaScript (see pool.ts).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
