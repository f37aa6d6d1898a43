#!/usr/bin/env node
// The `wg-conformance` command (also installed as `wgc`). From a clone (src/ beside this folder)
// it runs the TypeScript sources, compiled on load by tsx, so `npm ci` is all a clone needs; a
// run and the benchmark's runs (`run`, `bench`) take the JavaScript that `npm run build` compiled
// to dist/ (`npm ci` builds it) instead when that build is of exactly the current sources
// (bin/compiled.mjs): the same code without compiling it on load. Not after an edit (the build is
// stale until the next `npm run build`), nor with WGC_FROM_SOURCE=1, nor for suite files of one's
// own (--suites-dir, WGC_SUITES_DIR: TypeScript the compiled tree cannot load). The other commands
// work on the checkout itself (`docs` writes its pages) and always run the sources. From the
// installed package it runs dist/, with no TypeScript compilation at start-up.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const fromSource = existsSync(new URL('../src/cli/main.ts', import.meta.url));
// A compiled `wgc run` (and the benchmark's timed run) starts its vitest worker thread first
// thing, before the command loads (src/engine/prewarm.ts): it warms the suites meanwhile.
const startsWorker = (argv[0] === 'run' || (argv[0] === 'bench' && argv[1] === '--child-run')) && !argv.includes('--help') && !argv.includes('-h');
const earlyWorker = async () => {
  if (startsWorker) (await import('../dist/src/engine/prewarm.js')).startEarlyWorker();
};
let main;
if (fromSource) {
  const ownSuites = process.env.WGC_SUITES_DIR !== undefined || argv.some((a) => a === '--suites-dir' || a.startsWith('--suites-dir='));
  const compilable = (argv[0] === 'run' || argv[0] === 'bench') && process.env.WGC_FROM_SOURCE !== '1' && !ownSuites;
  const root = fileURLToPath(new URL('../', import.meta.url));
  if (compilable && (await import('./compiled.mjs')).compiledIsFresh(root, fileURLToPath(new URL('../dist/', import.meta.url)))) {
    await earlyWorker();
    ({ main } = await import('../dist/src/cli/main.js'));
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../src/cli/main.ts'));
  }
} else {
  await earlyWorker();
  ({ main } = await import('../dist/src/cli/main.js'));
}
process.exitCode = await main(argv);
