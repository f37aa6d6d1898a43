// Entry of a self-test worker (child process or worker thread). In the compiled package
// (dist/, `npm run build`) the worker is plain JavaScript beside this file; in a clone, register
// tsx first, which compiles the TypeScript sources on load (as bin/wgc.mjs does).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = existsSync(fileURLToPath(new URL('./worker.js', import.meta.url)));
if (!compiled) {
  const { register } = await import('tsx/esm/api');
  register();
}
const { startWorker } = await import(compiled ? './worker.js' : './worker.ts');
startWorker();
