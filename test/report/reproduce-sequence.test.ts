/**
 * A sequence's failure reproduces from the report alone (issue 29 item 4): against a reference
 * whose third write to a definition drops the enum values it does not name, a sequences check
 * fails on a shrunk sequence of a few steps; its reproduction script holds the suite's set-up and
 * that sequence's requests only (Evidence.from), and replayed against a fresh faulty reference
 * the failing PATCH answer again lacks enum values the sequence gave the definition, while
 * against the conformant reference the same script's answer has them all.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { loadCatalog } from '../../src/catalog/load.ts';
import { controlledRunContext } from '../../src/engine/context.ts';
import { runSuitesInProcess } from '../../src/engine/run.ts';
import { startReference } from '../../src/reference/index.ts';
import { buildRunResult } from '../../src/report/build.ts';
import { DEFAULT_SPEC_PATH, hashFile } from '../../src/report/meta.ts';
import { reproductionScript } from '../../src/report/reproduce.ts';
import { sequencesSuite } from '../../suites/sequences/index.ts';

const FAULT = 'third-write-drops-enum-values';
const TOKEN = 'tok-repro-sequence-0123456789';
const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const tools = has('curl') && has('jq');
if (!tools && !process.env.CI) console.warn('reproduce-sequence.test.ts: curl or jq is missing, so the script is not run (install curl and jq; .ci/run does)');

/** The enum value counts of the JSON bodies the script printed (the `show` of the failing step). */
function enumValueCounts(stdout: string): number[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        const body = JSON.parse(l) as { enum_values?: unknown[] };
        return Array.isArray(body.enum_values) ? [body.enum_values.length] : [];
      } catch {
        return [];
      }
    });
}

test.skipIf(!tools && !process.env.CI)(
  'the shrunk sequence is the whole reproduction, and its script shows the failure on the faulty reference only',
  async () => {
    const ref = await startReference({ faults: [FAULT], controlToken: TOKEN });
    let result;
    try {
      const seed = 3;
      const out = await runSuitesInProcess([sequencesSuite], controlledRunContext(ref, { seed, numRuns: 12 }), { concurrency: 1 });
      result = buildRunResult(out.results, loadCatalog(), {
        specHash: hashFile(DEFAULT_SPEC_PATH),
        targetBaseUrl: ref.baseUrl,
        control: true,
        config: { seed, runs: 12 },
        seed,
        startedAt: '2026-11-28T12:00:00.000Z',
        durationMs: out.durationMs,
        requests: out.requests,
        creditsCharged: out.creditsCharged,
        runErrors: out.runErrors,
      });
    } finally {
      await ref.close();
    }
    const evidence = result.clauses.flatMap((c) => c.evidence).filter((e) => e.clause === 'DEF-028' && e.from !== undefined);
    expect(evidence.length).toBeGreaterThan(0);
    const e = evidence[0]!;
    const check = result.checks.find((c) => c.checkId === e.checkId)!;
    // A handful of steps (of the up to 18 a sequence holds): the failing one is the last the
    // scenario lists. Steps name their targets by index among the live definitions, so dropping
    // an early step retargets the later ones and the shrinker keeps some it cannot remove.
    const listed = e.scenario!.split('\n').length;
    expect(listed).toBeLessThanOrEqual(8);
    expect(e.message).toMatch(new RegExp(`^step ${listed} of `));
    const steps = check.scenario!.steps;
    expect(steps.filter((s) => s.phase !== 'setup').length).toBeLessThanOrEqual(2 * listed);
    expect(steps[steps.findIndex((s) => s.phase !== 'setup')]!.id).toBe(e.from);

    const script = reproductionScript(
      check,
      result.meta,
      result.clauses.flatMap((c) => c.evidence.filter((x) => x.checkId === check.checkId)),
    )!;
    const file = join(mkdtempSync(join(tmpdir(), 'wgc-repro-seq-')), 'repro.sh');
    writeFileSync(file, script);
    const counts: Record<string, number[]> = {};
    for (const [name, faults] of [
      ['faulty', [FAULT]],
      ['conformant', []],
    ] as const) {
      const target = await startReference({ faults, controlToken: TOKEN });
      try {
        const run = await promisify(execFile)('sh', [file], {
          env: { PATH: process.env.PATH, WGC_BASE_URL: target.baseUrl, WGC_CONTROL_URL: target.controlUrl, WGC_CONTROL_TOKEN: TOKEN },
          encoding: 'utf8',
        });
        expect(run.stderr).toBe('');
        counts[name] = enumValueCounts(run.stdout);
      } finally {
        await target.close();
      }
    }
    expect(counts.faulty!.length).toBeGreaterThan(0);
    expect(counts.conformant!.length).toBe(counts.faulty!.length);
    // The failing answer lacks values on the faulty target and has them on the conformant one.
    expect(counts.faulty!.at(-1)!).toBeLessThan(counts.conformant!.at(-1)!);
  },
  180_000,
);
