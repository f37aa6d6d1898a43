#!/usr/bin/env node
/**
 * `npm run mutation [-- --module NAME]... [--seed N]`: mutation testing of the reference
 * target's rule code, with the conformance checks as the tests (test/mutation/checks.mutation.ts,
 * one vitest test per check, run in-process against the reference). Mutates the modules below,
 * prints the score per module, writes Stryker's HTML report (reports/mutation/index.html) and
 * docs/mutation.md (the scores, the survivors, the mutants disabled in the source with their
 * reasons, the run time). A survivor is either killed by a stronger check or, where it is
 * equivalent or a behaviour the document allows, disabled in the reference's source with
 * Stryker's own comment and the reason (`// Stryker disable next-line <Mutator>: <reason>`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Stryker } from '@stryker-mutator/core';
import { switchedOff as isSwitchedOff } from './equivalent.mjs';
import { MODULES } from './modules.mjs';
import { renderMutationPage } from './render.mjs';

export { MODULES };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function parseArgs(argv) {
  const modules = [];
  let seed;
  let out = 'docs/mutation.md';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--module') modules.push(argv[++i]);
    else if (a === '--seed') seed = argv[++i];
    else if (a === '--out') out = argv[++i];
    else if (a === '--help' || a === '-h') {
      console.log(`usage: npm run mutation -- [--module NAME]... [--seed N] [--out FILE]\nmodules: ${Object.keys(MODULES).join(', ')} (default: all)`);
      process.exit(0);
    } else {
      console.error(`unknown argument ${a}`);
      process.exit(2);
    }
  }
  for (const m of modules) {
    if (!MODULES[m]) {
      console.error(`unknown module ${m}; modules: ${Object.keys(MODULES).join(', ')}`);
      process.exit(2);
    }
  }
  return { modules: modules.length > 0 ? modules : Object.keys(MODULES), seed, out };
}

const { modules, seed, out } = parseArgs(process.argv.slice(2));
/** Test runners side by side (WGC_MUTATION_CONCURRENCY; default: up to 2, the machine's cores). */
const concurrency = Number(process.env.WGC_MUTATION_CONCURRENCY ?? Math.max(1, Math.min(2, cpus().length)));
if (seed !== undefined) process.env.WGC_MUTATION_SEED = seed;
// A run on another seed keeps results of its own (a reused result would be the first seed's).
const moduleSet = modules.join('+').length <= 120 ? modules.join('+') : `${modules.length}-modules-${createHash('sha256').update(modules.join('+')).digest('hex').slice(0, 12)}`;
const incrementalFile = `reports/mutation/incremental-${moduleSet}${seed !== undefined ? `-seed${seed}` : ''}.json`;
/** Whether this run reuses an earlier run's results (see `incremental` below). */
const incremental = existsSync(resolve(ROOT, incrementalFile)) && process.env.WGC_MUTATION_FULL !== '1';
const started = Date.now();
const cpuStart = process.cpuUsage();
const stryker = new Stryker({
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner', fileURLToPath(new URL('./fault-switches.mjs', import.meta.url))],
  ignorers: ['fault-switches'],
  coverageAnalysis: 'perTest',
  mutate: modules.map((m) => MODULES[m]),
  // A mutant that breaks billing makes a session wait for charges at close: slow kills, not hangs.
  timeoutMS: 15_000,
  concurrency,
  // Module-level constants run once at start-up; every test would have to run for each.
  ignoreStatic: true,
  // Incremental: a later run of the same modules reuses the results of mutants whose code and
  // covering tests did not change. Stryker sees only this folder's test file, not the suites it
  // runs: after a change to the checks (suites/, src/), run with WGC_MUTATION_FULL=1, which runs
  // every mutant again.
  incremental: true,
  incrementalFile,
  force: process.env.WGC_MUTATION_FULL === '1',
  reporters: ['html', 'json', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  // WGC_MUTATION_TMP: a sandbox folder of its own, so that two runs (of different modules) can go side by side.
  tempDirName: process.env.WGC_MUTATION_TMP ?? '.stryker-tmp',
  cleanTempDir: 'always',
  disableTypeChecks: 'src/reference/**/*.ts',
});
const results = await stryker.runMutationTest();
const wallS = (Date.now() - started) / 1000;

/** Survivors equivalent by construction (test/mutation/equivalent.mjs), classified from the mutated source text. */
const sources = new Map();
function sourceOf(r) {
  const file = resolve(ROOT, relative(ROOT, r.fileName));
  if (!sources.has(file)) sources.set(file, readFileSync(file, 'utf8').split('\n'));
  const lines = sources.get(file);
  const { start, end } = r.location;
  const chunk = lines.slice(start.line - 1, end.line);
  if (chunk.length === 0) return '';
  chunk[chunk.length - 1] = chunk[chunk.length - 1].slice(0, Math.max(0, end.column - 1));
  chunk[0] = chunk[0].slice(Math.max(0, start.column - 1));
  return chunk.join('\n');
}
const switchedOff = (r) => isSwitchedOff(r.mutatorName, r.replacement, sourceOf(r));

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const rows = modules.map((m) => {
  const file = MODULES[m];
  const mine = results.filter((r) => relative(ROOT, r.fileName) === file || r.fileName === file);
  const detected = mine.filter((r) => DETECTED.has(r.status)).length;
  const undetected = mine.filter((r) => UNDETECTED.has(r.status) && !switchedOff(r));
  const equivalent = mine.filter((r) => UNDETECTED.has(r.status) && switchedOff(r));
  const ignored = mine.filter((r) => r.status === 'Ignored');
  const errors = mine.filter((r) => r.status === 'CompileError' || r.status === 'RuntimeError').length;
  const valid = detected + undetected.length;
  return { module: m, file, total: mine.length, detected, undetected, equivalent, ignored, errors, score: valid === 0 ? 100 : (100 * detected) / valid };
});

const line = (r) =>
  `${r.module.padEnd(15)} ${r.score.toFixed(1).padStart(5)} %  ${String(r.detected).padStart(4)} killed of ${String(r.detected + r.undetected.length).padStart(4)}  (${r.ignored.length} disabled or static, ${r.errors} errors)`;
console.log(`\nmutation score per module (killed or timed out / killed + survived + no coverage):`);
for (const r of rows) console.log(`  ${line(r)}`);
console.log(`wall ${wallS.toFixed(0)} s; the HTML report: reports/mutation/index.html`);

// Results are kept per module (docs/mutation.json), so modules can be run one at a time and the
// page shows the latest run of each.
const cpu = process.cpuUsage(cpuStart);
const variants = process.env.WGC_MUTATION_VARIANTS ?? 'default,alternative,lenient';
const storePath = resolve(process.cwd(), out.replace(/\.md$/, '.json'));
let store = { modules: {} };
try {
  store = JSON.parse(readFileSync(storePath, 'utf8'));
} catch {
  /* first run */
}
for (const r of rows) {
  store.modules[r.module] = {
    file: r.file,
    score: Number(r.score.toFixed(1)),
    killed: r.detected,
    undetected: r.undetected.map((u) => ({
      line: u.location.start.line,
      mutator: u.mutatorName,
      replacement: String(u.replacement ?? '')
        .replace(/\s+/g, ' ')
        .slice(0, 100),
      status: u.status,
    })),
    equivalent: r.equivalent.map((u) => ({
      line: u.location.start.line,
      mutator: u.mutatorName,
      replacement: String(u.replacement ?? ''),
      reason: u.mutatorName === 'LogicalOperator' ? 'a disjunction of fault switches made a conjunction: false either way with no fault on' : 'a fault switch turned off: off already with no fault on',
    })),
    disabled: r.ignored.filter((i) => i.statusReason && !/static/i.test(i.statusReason)).map((i) => ({ line: i.location.start.line, mutator: i.mutatorName, reason: i.statusReason })),
    staticOrIgnored: r.ignored.length,
    errors: r.errors,
    date: new Date().toISOString().slice(0, 10),
    seed: Number(process.env.WGC_MUTATION_SEED ?? 20240611),
    variants,
    wallS: Math.round(wallS / modules.length),
    runWallS: Math.round(wallS),
    runModules: modules,
    incremental,
  };
}
writeFileSync(storePath, `${JSON.stringify(store, null, 2)}\n`);

renderMutationPage(
  store,
  `This run: ${modules.join(', ')}, ${wallS.toFixed(0)} s wall (this process ${(cpu.user / 1e6).toFixed(0)} s CPU; the test runners are separate processes), concurrency ${concurrency}.`,
  resolve(process.cwd(), out),
);
console.log(`wrote ${out} and ${storePath}`);
