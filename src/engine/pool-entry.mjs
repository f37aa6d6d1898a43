// Entry of the vitest worker thread `wgc run` starts before vitest itself (src/engine/prewarm.ts).
// It loads vitest's own thread-worker runtime, which then answers vitest's pool as the worker of
// the built-in `threads` pool does, and, beside it, imports the modules the suites will import:
// when vitest's run imports the suite files, those modules are loaded already (one module map per
// thread). A module that fails here fails again, with the same error, when a suite imports it.
// Asked on its port, it outlines the suites for the command (src/engine/outline.ts) once warm.
import { workerData } from 'node:worker_threads';

const { vitestEntry, warm, outline } = workerData;
const runtime = import(vitestEntry);
const warmed = Promise.all(warm.map((url) => import(url).catch(() => undefined)));
outline.port.once('message', async (ask) => {
  let message;
  try {
    await warmed;
    const { outlineSuites } = await import(outline.module);
    message = await outlineSuites(ask.files, ask.root, ask.figures);
  } catch (e) {
    message = { error: e instanceof Error ? e.message : String(e) };
  }
  outline.port.postMessage(message);
  outline.port.close();
});
// The port waits for the command's question without keeping the thread alive on its own.
outline.port.unref();
await runtime;
