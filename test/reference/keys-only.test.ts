/**
 * The supplied-keys profile as documented, against the reference and its three conformant
 * variants (the extended one names its roles `Owner`, `Analyst`... in GET /me), without the test-control protocol (keys-only.ts): the suites share the one
 * workspace the keys belong to, side by side, at the default and the highest suite
 * concurrency, in an empty workspace and in one that holds earlier runs' left-overs while a
 * noisy neighbour creates, patches, archives and lists definitions throughout. A conformant
 * server must come out of every run with no failed check and no harness error, the same checks
 * verified whatever else happens in the workspace, and the run's charges within the plan's
 * ceiling.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SuiteDef } from '../../src/engine/check.ts';
import type { VariantName } from '../../src/reference/index.ts';
import { loadAllSuites, problems, runKeysOnly, type KeysOnlyOptions, type KeysOnlyRun } from './keys-only.ts';

const VARIANTS: readonly VariantName[] = ['default', 'alternative', 'lenient', 'extended'];
/** --concurrency: the default, and every suite at once. */
const CONCURRENCY = [2, 9] as const;
/**
 * Two runs for each variant, with two seeds of its own (161 to 168): an empty workspace at one
 * concurrency and a noisy one at the other, the variants taking the concurrencies in turn. Over
 * the variants every setting (concurrency × workspace) runs twice, with two variants and two
 * seeds, at half the time of every setting for each variant (npm test's budget).
 */
const firstSeed = (variant: VariantName): number => 161 + 2 * VARIANTS.indexOf(variant);
const LEFTOVERS = 300;
const NEIGHBOUR_INTERVAL_MS = 2;
const RUNS_TIMEOUT_MS = 600_000;

const settings = (variant: VariantName): KeysOnlyOptions[] => {
  const seed = firstSeed(variant);
  const [quiet, noisy] = VARIANTS.indexOf(variant) % 2 === 0 ? CONCURRENCY : ([CONCURRENCY[1], CONCURRENCY[0]] as const);
  return [
    { variant, seed, concurrency: quiet },
    { variant, seed: seed + 1, concurrency: noisy, leftovers: LEFTOVERS, neighbourIntervalMs: NEIGHBOUR_INTERVAL_MS },
  ];
};

const label = (o: KeysOnlyOptions): string => `--concurrency ${o.concurrency}, seed ${o.seed}${o.leftovers ? `, ${o.leftovers} left-overs and a noisy neighbour` : ', empty workspace'}`;

let suites: SuiteDef[];
const runs = new Map<VariantName, KeysOnlyRun[]>();

beforeAll(async () => {
  suites = await loadAllSuites();
  // A variant's runs side by side (their ledger waits overlap), the variants one after another.
  for (const variant of VARIANTS) runs.set(variant, await Promise.all(settings(variant).map((o) => runKeysOnly(suites, o))));
}, RUNS_TIMEOUT_MS);

describe.each(VARIANTS)('the supplied-keys profile against the %s reference, without the control protocol', (variant) => {
  it('fails no check and has no harness error, in every setting', () => {
    for (const r of runs.get(variant)!) expect(problems(r), label(r.options)).toEqual([]);
  });

  it('verifies the same checks whatever else is in the workspace or happens to it', () => {
    const [quiet, ...others] = runs.get(variant)!;
    const passed = (r: KeysOnlyRun) =>
      r.results
        .filter((c) => c.outcome === 'passed')
        .map((c) => c.checkId)
        .sort();
    // Keys-only, about two thirds of the checks are observable; the rest need the control protocol.
    expect(passed(quiet!).length).toBeGreaterThan(60);
    for (const r of others) {
      const lost = r.results.filter((c) => c.outcome !== 'passed' && passed(quiet!).includes(c.checkId)).map((c) => `${c.checkId}: ${c.outcome} (${c.reason ?? ''})`);
      expect(passed(r), `${label(r.options)}:\n${lost.join('\n')}`).toEqual(passed(quiet!));
    }
  });

  it('the neighbour really wrote during the noisy runs', () => {
    for (const r of runs.get(variant)!.filter((x) => x.neighbour)) {
      expect(r.neighbour!.creates, label(r.options)).toBeGreaterThan(10);
      expect(r.neighbour!.archives, label(r.options)).toBeGreaterThan(2);
    }
  });

  it("keeps the run's own charges within the credit plan's ceiling", () => {
    for (const r of runs.get(variant)!) {
      expect(r.charged, label(r.options)).toBeGreaterThan(0);
      expect(r.charged, label(r.options)).toBeLessThanOrEqual(r.ceiling);
    }
  });
});
