#!/usr/bin/env node
/**
 * `npm run build` (also run by `npm ci` and `npm pack` through `prepare`): compiles the suite to JavaScript in
 * dist/, the tree the installed package runs (bin/wg-conformance.mjs loads dist/ when there is no
 * src/ beside it). dist/ mirrors the checkout, so the paths the code reads relative to its own
 * module (../../specs/openapi.yaml, ../../package.json, ../../suites/) hold there too:
 *
 *   dist/src, dist/suites, dist/reporters   tsc (tsconfig.build.json; imports rewritten .ts -> .js)
 *   dist/specs                              the spec, control spec, catalog and report schema
 *   dist/package.json                       name, version and "type": "module"
 *   dist/bin/wgc.mjs                        the entry the benchmark spawns
 *   dist/src/selftest/worker-entry.mjs      the self-test worker's entry (plain JavaScript)
 *   dist/src/engine/pool-entry.mjs          the vitest worker's entry when started before vitest (prewarm.ts)
 *   dist/build-stamp.json                   what it was built from (bin/compiled.mjs): a clone's
 *                                           command runs dist/ only while it matches the sources
 *
 * Through `prepare`, `npm ci` runs it too, so a fresh clone's command starts compiled.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stampOf, writeStamp } from '../bin/compiled.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
const started = Date.now();

const stamp = stampOf(ROOT);
rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) {
  console.error('build: tsc failed');
  process.exit(1);
}
cpSync(join(ROOT, 'specs'), join(DIST, 'specs'), { recursive: true, filter: (src) => !src.endsWith('README.md') });
cpSync(join(ROOT, 'src/selftest/worker-entry.mjs'), join(DIST, 'src/selftest/worker-entry.mjs'));
cpSync(join(ROOT, 'src/engine/pool-entry.mjs'), join(DIST, 'src/engine/pool-entry.mjs'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
writeFileSync(join(DIST, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, description: `${pkg.description} (compiled)`, type: 'module', private: true }, null, 2)}\n`);
mkdirSync(join(DIST, 'bin'), { recursive: true });
writeFileSync(
  join(DIST, 'bin/wgc.mjs'),
  `#!/usr/bin/env node\n// The compiled entry (dist/), for the benchmark's child runs.\nconst { main } = await import('../src/cli/main.js');\nprocess.exitCode = await main(process.argv.slice(2));\n`,
);
writeStamp(DIST, stamp);
console.log(`build: dist/ written in ${((Date.now() - started) / 1000).toFixed(1)} s`);
