/**
 * The collecting vitest reporter: gathers the CheckResult each check's test stores in
 * `task.meta.wgc` (sent from the workers with the test result) and turns every test that
 * ended without one into a result the report can still place:
 *
 * - failed without meta (a crash in a hook or in the glue) → harnessError for the clauses
 *   named at the end of the test name, with the error message;
 * - failed although its meta says passed/notObservable/disabled (e.g. a failing cleanup
 *   hook) → harnessError: the pass cannot be trusted;
 * - passed without meta → harnessError (the glue did not record what the check concluded);
 * - skipped without meta → harnessError when a surrounding hook failed, disabled otherwise.
 *
 * Module-level errors, failed suite hooks (beforeAll/afterAll) and unhandled errors become
 * run errors (the verdict is then inconclusive).
 */
import type { Reporter, SerializedError, TestCase, TestModule, TestSuite } from 'vitest/node';
import type { CheckResult } from '../src/engine/check.ts';
import type { Outcome } from '../src/engine/outcome.ts';
import type { Shard } from '../src/report/model.ts';
import type { RunMetaInput } from '../src/report/meta.ts';
import { loadCatalog, type Catalog } from '../src/catalog/load.ts';
import { parseCheckResult } from '../src/report/check-result.ts';
import { parseTestName } from '../src/report/test-name.ts';
import { writePartialFile } from '../src/report/partial.ts';

/** Options of WgcReporter. */
export interface WgcReporterOptions {
  /** The catalog the run uses (for shard partials). Default: the project's catalog. */
  catalog?: Catalog;
  /** Called after each collected result (progress lines). */
  onResult?: (result: CheckResult) => void;
}

function errorText(errors: ReadonlyArray<SerializedError> | undefined): string {
  const first = errors?.[0];
  if (!first) return 'no error message';
  const name = first.name && first.name !== 'Error' ? `${first.name}: ` : '';
  return `${name}${first.message}`.split('\n')[0]!;
}

/** Errors of the suites and module around a test (failed beforeAll/afterAll hooks). */
function enclosingErrors(test: TestCase): SerializedError[] {
  const errors: SerializedError[] = [];
  let parent: TestSuite | TestModule = test.parent;
  for (;;) {
    errors.push(...parent.errors());
    if (parent.type === 'module') return errors;
    parent = parent.parent;
  }
}

/** The vitest reporter that collects CheckResults (see the file comment). */
export class WgcReporter implements Reporter {
  readonly #results = new Map<string, CheckResult>();
  readonly #runErrors: string[] = [];
  readonly #options: WgcReporterOptions;

  constructor(options: WgcReporterOptions = {}) {
    this.#options = options;
  }

  onTestCaseResult(testCase: TestCase): void {
    this.#collect(testCase);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    for (const module of testModules) {
      // Tests never reported one by one (interrupted runs, hook failures) are placed here.
      for (const test of module.children.allTests()) this.#collect(test);
      for (const e of module.errors()) this.#runErrors.push(`${module.relativeModuleId}: ${errorText([e])}`);
      // Failed beforeAll/afterAll hooks (provisioning, workspace teardown): the harness broke
      // around the tests, even when each test reported a result.
      for (const suite of module.children.allSuites()) {
        for (const e of suite.errors()) this.#runErrors.push(`${module.relativeModuleId} > ${suite.fullName}: ${errorText([e])}`);
      }
    }
    for (const e of unhandledErrors) this.#runErrors.push(`unhandled error: ${errorText([e])}`);
  }

  /** Every check result collected so far (one per test). */
  results(): CheckResult[] {
    return [...this.#results.values()];
  }

  /** Problems of the run itself (module load failures, unhandled errors). */
  runErrors(): string[] {
    return [...this.#runErrors];
  }

  /**
   * Writes this shard's partial (its results and run facts, with the run errors seen here
   * added to meta.runErrors) for `wgc merge`. Returns the file's path.
   */
  async writePartial(outDir: string, shard: Shard, meta: RunMetaInput): Promise<string> {
    const catalog = this.#options.catalog ?? loadCatalog();
    const runErrors = [...(meta.runErrors ?? []), ...this.#runErrors];
    return writePartialFile(outDir, shard, catalog.hash, { ...meta, runErrors }, this.results());
  }

  #collect(test: TestCase): void {
    if (this.#results.has(test.id)) return;
    const state = test.result().state;
    if (state === 'pending') return;
    const result = this.#resultOf(test, state);
    this.#results.set(test.id, result);
    if (result.outcome === 'harnessError' && Object.keys(result.clauses).length === 0) {
      // Attributable to no clause: keep it from vanishing, it makes the run inconclusive.
      this.#runErrors.push(`${test.fullName}: ${result.reason ?? 'harness error'}`);
    }
    this.#options.onResult?.(result);
  }

  #resultOf(test: TestCase, state: 'passed' | 'failed' | 'skipped'): CheckResult {
    const raw = (test.meta() as { wgc?: unknown }).wgc;
    const errors = test.result().errors;
    if (raw !== undefined) {
      const parsed = parseCheckResult(raw);
      if (!parsed.ok) return this.#synthetic(test, 'harnessError', `the check's result is malformed: ${parsed.problem}`);
      const r = parsed.result;
      if (state === 'failed' && r.outcome !== 'failed' && r.outcome !== 'harnessError') {
        return this.#synthetic(test, 'harnessError', `the test failed after the check concluded ${r.outcome}: ${errorText(errors)}`, r);
      }
      return r;
    }
    if (state === 'failed') return this.#synthetic(test, 'harnessError', errorText(errors));
    if (state === 'passed') return this.#synthetic(test, 'harnessError', 'the test passed without recording a check result');
    const hookErrors = enclosingErrors(test);
    if (hookErrors.length > 0) return this.#synthetic(test, 'harnessError', `a hook failed: ${errorText(hookErrors)}`);
    return this.#synthetic(test, 'disabled', `skipped by the test runner (${test.options.mode})`);
  }

  /** A result for a test that could not report its own, attributed to the clauses in its name. */
  #synthetic(test: TestCase, outcome: Outcome, reason: string, from?: CheckResult): CheckResult {
    const name = parseTestName(test.name);
    const ids = from ? Object.keys(from.clauses) : name.clauses;
    return {
      checkId: from?.checkId ?? (name.checkId || test.fullName),
      suite: from?.suite ?? name.suite,
      title: from?.title ?? name.title,
      outcome,
      clauses: Object.fromEntries(ids.map((id) => [id, outcome])),
      reason,
      findings: [],
      requests: from?.requests ?? 0,
      plannedCredits: from?.plannedCredits ?? 0,
      durationMs: from?.durationMs ?? test.diagnostic()?.duration ?? 0,
      seed: from?.seed ?? 0,
    };
  }
}

export default WgcReporter;
