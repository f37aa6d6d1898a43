#!/usr/bin/env node
// The `wg-conformance` command (also installed as `wgc`). From a clone (src/ beside this folder)
// it runs the TypeScript sources, compiled on load by tsx, so `npm ci` is all a clone needs; from
// the installed package it runs the JavaScript compiled by `npm run build` (dist/), with no
// TypeScript compilation at start-up.
import { existsSync } from 'node:fs';

const fromSource = existsSync(new URL('../src/cli/main.ts', import.meta.url));
let main;
if (fromSource) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
} else {
  ({ main } = await import('../dist/src/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
