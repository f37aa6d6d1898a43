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
import { describe, expect, it } from 'vitest';
import { createControlClient } from '../../src/control/client.ts';
import { controlledRunContext } from '../../src/engine/context.ts';
import { discoverSuites, loadSuiteDefs } from '../../src/engine/discover.ts';
import { prepareRun } from '../../src/engine/run.ts';
import { openSession, type SuiteSession } from '../../src/engine/session.ts';
import { startReference, type VariantName } from '../../src/reference/index.ts';

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
      // Each check on a reference and a session of its own, opened inside its test: Stryker
      // switches a mutant on for the tests only, and runs only the tests that reached the mutated
      // code in its dry run. Opened once per suite (a beforeAll, or the first test), the session's
      // workspace, members and keys would be made by unmutated code, or a mutant there would be
      // judged by one check alone. Opened in every test, the reference's start, the store and the
      // control protocol run mutated under every check, as they do when `wgc run` meets a mutant.
      for (const check of suite.checks) {
        it(check.id, async () => {
          const ref = await startReference({ variant, prompt: true });
          let session: SuiteSession | undefined;
          try {
            // As `wgc run` does first: the control URL speaks wg-control version 1, or nothing runs.
            const control = createControlClient({ controlUrl: ref.controlUrl, token: ref.controlToken, http: { timeoutMs: REQUEST_TIMEOUT_MS, allowInsecureHttp: true } });
            const info = await control.info().finally(() => control.close());
            expect(info, 'GET / of the control protocol').toMatchObject({ protocol: 'wg-control', version: 1 });
            const prepared = await prepareRun([suite], controlledRunContext(ref, { seed: SEED, numRuns: NUM_RUNS, timeoutMs: REQUEST_TIMEOUT_MS }));
            session = await openSession(suite, prepared.run);
            const r = await session.run(check);
            const why = [r.reason ?? '', ...r.findings.map((f) => `${f.clause}: ${f.message}`)].join('; ');
            expect(r.outcome, why).not.toMatch(/^(failed|harnessError)$/);
          } finally {
            await session?.close().catch(() => undefined);
            await ref.close();
          }
        });
      }
    });
  }
