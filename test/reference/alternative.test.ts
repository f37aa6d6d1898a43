/**
 * Every suite against the conformant reference variants other than the default, side by side
 * with the default (docs/reference-target.md, "Alternative variant" and "Lenient variant"):
 *
 * - `alternative` (src/reference/alternative.ts) makes the other conformant choice wherever the
 *   seed leaves room: another key prefix and alphabet, 200 creates, swapped statuses for departed
 *   members and paused workspaces, 403 for foreign ids, 404 for malformed path ids and unknown
 *   operations, 415 for non-JSON bodies, strict write bodies, writes to archived definitions
 *   that leave them archived, stored refusals and workspace-wide Idempotency-Keys, trailing
 *   cursors, one moduleKeys wire form, receipts, quotes and catalog laid out differently, 4 s
 *   agent previews, a ledger that lags 150 ms, states that move on their own...
 * - `lenient` (src/reference/lenient.ts) is the default read the way lenient real-world stacks
 *   read requests: null in an optional field as not given, scalar strings coerced, JSON under
 *   any content type, trailing bytes ignored, uuids without hyphens, yes/no query booleans, 422
 *   for invalid requests, moduleKeys last-wins, an inclusive cursor, ICPs at another path; and
 *   with work that shows late: receipts after 4 s with null quote fields meanwhile, estimates
 *   after 1 s, a ledger that lags 2.5 s.
 * - `extended` (src/reference/extended.ts) adds what a reimplementation adds of its own: fields
 *   in every answer (a Definition's `revision` that moves with every write, clocks and request
 *   ids that move with every request), headers, receipts that go queued → running → done, other
 *   layouts for every shape the document does not show, roles spelt `Owner` in GET /me.
 *
 * A conformant server must not fail: any failed clause or harness error here is a suite bug,
 * and so is a clause the suites verify against the default but not against the variant (a
 * check that only finds what it needs where the default puts it).
 *
 * The runs are in-process (the same sessions and checks as `wgc run`, test/reference/variant-runs.ts),
 * side by side, and compared clause by clause and check by check.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { VariantName } from '../../src/reference/index.ts';
import { checkDifferences, failedClauses, harnessErrors, runAgainst, table, verifiedDifference, type RunOptions, type VariantRun } from './variant-runs.ts';

/** All runs together, on a loaded machine (side by side they take 13-25 s on the 2-core one). */
const RUNS_TIMEOUT_MS = 600_000;

interface Allowances {
  /** How the variant is run (default: as `wgc run` runs by default). */
  run?: RunOptions;
  /** Clauses verified against the default but not observable against the variant, each with why that is acceptable. */
  notVerified: Readonly<Record<string, string>>;
  /**
   * Per-check differences that are expected, as "checkId clause" (besides the ambient
   * ERR-001/ERR-002, which variant-runs.ts leaves out of the comparison).
   */
  checkDifferences: ReadonlySet<string>;
}

/**
 * A check that prices a refused candidate (BILL-006) judges it only where a server refuses the
 * first request it tries on an endpoint: the default accepts every first candidate (not
 * observable there, test/reference/judged.test.ts), the alternative and the lenient refuse some
 * (people by canonical id, unknown properties), so the check observes more against them.
 */
const MORE_REFUSALS = new Set(['billing/billed-calls-cost-one BILL-006']);

/**
 * The variants under test and what each may do differently from the default. Besides
 * MORE_REFUSALS, no allowances: every reading the variants take is one the checks search for
 * (receipt ids, quotes, catalog names, moduleKeys forms...) or accept (null for "not given",
 * 422, an inclusive cursor...).
 */
const VARIANTS: Readonly<Partial<Record<Exclude<VariantName, 'default'>, Allowances>>> = {
  alternative: { notVerified: {}, checkDifferences: MORE_REFUSALS },
  lenient: { notVerified: {}, checkDifferences: MORE_REFUSALS },
  extended: { notVerified: {}, checkDifferences: new Set() },
};
const UNDER_TEST = Object.keys(VARIANTS) as Exclude<VariantName, 'default'>[];

const runs = new Map<VariantName, VariantRun>();

beforeAll(async () => {
  const done = await Promise.all((['default', ...UNDER_TEST] as VariantName[]).map((v) => runAgainst(v, v === 'default' ? {} : VARIANTS[v]!.run)));
  for (const r of done) runs.set(r.variant, r);
  // Timing, for docs/reference-target.md and the curious.
  process.stdout.write(`alternative.test: ${done.map((r) => `${r.variant} ${r.durationMs} ms (${r.requests} requests)`).join(', ')}, side by side\n`);
}, RUNS_TIMEOUT_MS);

describe.each(UNDER_TEST)('every suite against the %s reference variant', (variant) => {
  const allowed = VARIANTS[variant]!;
  const def = () => runs.get('default')!;
  const other = () => runs.get(variant)!;

  it('fails no clause', () => {
    expect(failedClauses(other()), `clauses failed against a conformant server (suite bugs):\n${table(other())}`).toEqual([]);
  });

  it('has no harness errors and no run errors', () => {
    expect(harnessErrors(other()), table(other())).toEqual([]);
  });

  it('verifies the same clauses as against the default', () => {
    const { lost, gained, stale } = verifiedDifference(def(), other(), allowed.notVerified);
    expect(
      { lost, gained },
      `verified against the default but not the ${variant} variant: ${lost.join(', ') || 'none'}; the reverse: ${gained.join(', ') || 'none'}\n${table(other())}\n${table(def())}`,
    ).toEqual({ lost: [], gained: [] });
    // The allowance list must not go stale.
    expect(stale, `the allowances of the ${variant} variant name clauses that no longer need them`).toEqual([]);
  });

  it('gives every check the same outcome per clause as against the default', () => {
    expect(checkDifferences(def(), other(), allowed.checkDifferences), `a check that observes less against the ${variant} variant only finds what it needs where the default puts it`).toEqual([]);
  });
});
