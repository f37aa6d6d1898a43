// Entry of a self-test worker (child process or worker thread): register tsx, which compiles
// the TypeScript sources on load (as bin/wgc.mjs does), then serve the pool.
import { register } from 'tsx/esm/api';

register();
const { startWorker } = await import('./worker.ts');
startWorker();
