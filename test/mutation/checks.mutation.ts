/**
 * Every conformance check as a test of the reference target, for mutation testing: one vitest
 * test per check, so Stryker's per-test coverage runs only the checks that reach a mutated line.
 * The reference runs in this process (its code is the code under mutation); each suite gets its
 * session as `wgc run` opens it (own workspace and cast, through the control protocol), with the
 * self-test's seed, on each conformant variant of the reference (without its delays: the
 * timings are not the code under mutation). A check that fails a clause, or breaks the harness, fails its test: the
 * mutant is killed. A check that is not observable on the mutant passes (it caught nothing).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { controlledRunContext } from '../../src/engine/context.ts';
import { discoverSuites, loadSuiteDefs } from '../../src/engine/discover.ts';
import { prepareRun } from '../../src/engine/run.ts';
import { openSession, type SuiteSession } from '../../src/engine/session.ts';
import { startReference, type RunningReference, type VariantName } from '../../src/reference/index.ts';

const SUITES_DIR = fileURLToPath(new URL('../../suites/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The seed (WGC_MUTATION_SEED: results must not depend on it, so the runner tries two). */
const SEED = Number(process.env.WGC_MUTATION_SEED ?? 20_240_611);
const NUM_RUNS = 10;
/**
 * Per request: the in-process reference answers in milliseconds, so a mutant that leaves a
 * request unanswered fails its check (a transport timeout is a harness error) in seconds
 * instead of holding the test runner until Stryker's own timeout.
 */
const REQUEST_TIMEOUT_MS = 4_000;
/**
 * The reference's conformant variants the checks run against (WGC_MUTATION_VARIANTS, comma
 * separated; default all three): code only a variant reaches (the alternative's and the lenient
 * readings) is covered by that variant's runs, so a mutant there is judged, not left uncovered.
 */
const VARIANTS = (process.env.WGC_MUTATION_VARIANTS ?? 'default,alternative,lenient')
  .split(',')
  .map((v) => v.trim())
  .filter(Boolean) as VariantName[];

const suites = await loadSuiteDefs(await discoverSuites(SUITES_DIR), ROOT);

for (const variant of VARIANTS)
  for (const suite of suites) {
    describe(`${variant} ${suite.name}`, () => {
      let ref: RunningReference | undefined;
      let opening: Promise<SuiteSession> | undefined;
      // Opened by the first test that runs, not in a beforeAll: Stryker switches a mutant on for
      // the tests only, so a session opened before them would be made by unmutated code. Opened
      // inside a test, the reference's start, the session's workspace, members and keys (the
      // store, the control protocol) run mutated, as they do when `wgc run` meets a mutant; the
      // dry run credits that code to the first test of each suite, which then runs for it.
      const sessionOf = (): Promise<SuiteSession> =>
        (opening ??= (async () => {
          ref = await startReference({ variant, prompt: true });
          const prepared = await prepareRun([suite], controlledRunContext(ref, { seed: SEED, numRuns: NUM_RUNS, timeoutMs: REQUEST_TIMEOUT_MS }));
          return openSession(suite, prepared.run);
        })());
      afterAll(async () => {
        await (await opening?.catch(() => undefined))?.close().catch(() => undefined);
        await ref?.close();
      });
      for (const check of suite.checks) {
        it(check.id, async () => {
          const session = await sessionOf();
          const r = await session.run(check);
          const why = [r.reason ?? '', ...r.findings.map((f) => `${f.clause}: ${f.message}`)].join('; ');
          expect(r.outcome, why).not.toMatch(/^(failed|harnessError)$/);
        });
      }
    });
  }
