// Entry of the vitest worker thread `wgc run` starts before vitest itself (src/engine/prewarm.ts).
// It loads vitest's own thread-worker runtime, which then answers vitest's pool as the worker of
// the built-in `threads` pool does, and, beside it, imports the modules the suites will import:
// when vitest's run imports the suite files, those modules are loaded already (one module map per
// thread). A module that fails here fails again, with the same error, when a suite imports it.
import { workerData } from 'node:worker_threads';

const { vitestEntry, warm } = workerData;
await import(vitestEntry);
for (const url of warm) import(url).catch(() => undefined);
