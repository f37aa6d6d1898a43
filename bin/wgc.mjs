#!/usr/bin/env node
// The `wgc` entry point. The project ships TypeScript sources; tsx compiles them on load,
// so a clean clone works after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
