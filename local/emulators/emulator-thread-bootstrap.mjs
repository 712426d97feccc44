// Starts the emulator thread from the TypeScript sources (tests, the benchmark); `npm start` runs
// a compiled copy of this file that imports the compiled module (scripts/build-server.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./emulator-thread-worker.ts');
