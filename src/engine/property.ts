/**
 * Property-based checks: fast-check's asyncProperty run with the run's seed and run count. A
 * failure becomes a Finding that replays from the report alone: seed, counterexample path,
 * the counterexample as JSON and, when the generated value carries one, its scenario.
 */
import fc from 'fast-check';
import type { CheckContext } from './check.ts';
import { Disabled, Finding, type Evidence } from './finding.ts';
import { inParallel } from './parallel.ts';

export interface PropertyOptions<T> {
  /** The clause a counterexample violates (when the predicate returns false or throws a non-Finding assertion). */
  clause: string;
  arbitrary: fc.Arbitrary<T>;
  /**
   * Sends the request(s) for one value and judges them: return false or throw a Finding to
   * fail. NotObservable, Disabled, any other error, and a Finding about a request that got no
   * answer (timeout, connection) stop the property at once (no shrinking) and are rethrown.
   */
  predicate: (value: T) => Promise<boolean | void>;
  /** Default: the run's --runs. */
  numRuns?: number;
  /**
   * Predicate calls allowed while shrinking a failure (each sends requests). Past it, shrinking
   * stops with the smallest counterexample found so far. Default 30.
   */
  maxShrinkCalls?: number;
  /**
   * Time allowed for shrinking, from the first failure (ms): past it, shrinking stops like past
   * maxShrinkCalls. For properties whose failing values are slow to replay (a sequence that
   * waits out a bound at each try); the counterexample is then reported as not minimal.
   */
  maxShrinkMs?: number;
  /**
   * An allowance of shrinking calls shared with other properties (the parts of one check played
   * side by side): each shrinking call takes one, and once none is left shrinking stops as past
   * maxShrinkCalls. Keeps the parts' shrinking together within one check's budget of requests.
   */
  shrinkPool?: { left: number };
  /** Replays one counterexample (fast-check path from a report), with the run's seed. */
  path?: string;
  /** Sees the final (shrunk) finding's evidence before it is thrown: a check may report it under a second clause too. */
  onFinding?: (evidence: Evidence) => void;
}

const MAX_COUNTEREXAMPLE = 4000;

/** JSON for any generated value (bigint, undefined and cycles included), truncated. */
export function counterexampleJson(value: unknown): string {
  const seen = new WeakSet<object>();
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') return `${v}n`;
    if (v === undefined) return '(undefined)';
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '(cycle)';
      seen.add(v);
    }
    return v;
  });
  const s = text ?? String(value);
  return s.length > MAX_COUNTEREXAMPLE ? `${s.slice(0, MAX_COUNTEREXAMPLE)}…` : s;
}

/** "name longer than maxLength 80 at /name" from a generated value carrying { scenario, path }. */
export function scenarioOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { scenario, path } = value as { scenario?: unknown; path?: unknown };
  if (typeof scenario !== 'string') return undefined;
  return typeof path === 'string' && path.length > 0 ? `${scenario} at ${path}` : scenario;
}

/**
 * `inner` with its shrinking cut off once `stop()` holds: no shrink stream is opened after that
 * and open ones end. Past the shrink budget fast-check would otherwise walk the rest of the
 * shrink tree, building every candidate (large generated bodies included) only for the
 * predicate to wave it through: time and memory for nothing, and the counterexample is the same.
 */
class StoppableShrinks<T> extends fc.Arbitrary<T> {
  constructor(
    private readonly inner: fc.Arbitrary<T>,
    private readonly stop: () => boolean,
  ) {
    super();
  }
  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    return this.inner.generate(mrng, biasFactor);
  }
  canShrinkWithoutContext(value: unknown): value is T {
    return this.inner.canShrinkWithoutContext(value);
  }
  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    if (this.stop()) return fc.Stream.nil();
    return this.inner.shrink(value, context).takeWhile(() => !this.stop());
  }
}

const isFinding = (e: unknown): e is Finding => e instanceof Finding || (e instanceof Error && e.name === 'Finding' && 'evidence' in e);

/** A finding about a request that got no (complete) answer, as opposed to a wrong answer. */
const isTransportFailure = (e: Finding): boolean => e.evidence.exchange?.error !== undefined && e.evidence.exchange.response === undefined;

/** Runs the property; resolves when it holds, throws a Finding with replay data when not. */
export async function checkProperty<T>(ctx: CheckContext, opts: PropertyOptions<T>): Promise<void> {
  const maxShrinkCalls = opts.maxShrinkCalls ?? 30;
  let aborted: { error: unknown } | undefined;
  let failures = 0;
  let shrinkCalls = 0;
  let firstFailing: T | undefined;
  let shrinkUntil = Infinity;
  // Set when the time budget, not the end of fast-check's shrink tree, ended the shrinking.
  let timeCut = false;
  const outOfTime = (): boolean => (timeCut ||= Date.now() >= shrinkUntil);
  // Set when the shared allowance (shrinkPool), taken by other properties too, ran out first.
  let poolCut = false;
  const pool = opts.shrinkPool;
  const poolEmpty = (): boolean => pool !== undefined && failures > 0 && (poolCut ||= pool.left <= 0);
  const takeFromPool = (): boolean => {
    if (pool === undefined) return true;
    if (pool.left <= 0) return !(poolCut = true);
    pool.left--;
    return true;
  };
  const failed = (value: T): void => {
    if (failures++ > 0) return;
    firstFailing = value;
    if (opts.maxShrinkMs !== undefined) shrinkUntil = Date.now() + opts.maxShrinkMs;
  };

  const exhausted = (): boolean => aborted !== undefined || shrinkCalls >= maxShrinkCalls || outOfTime() || poolEmpty();
  const property = fc.asyncProperty(new StoppableShrinks(opts.arbitrary, exhausted), async (value: T) => {
    // After an abort or past the shrink budget, report "holds" without sending anything:
    // fast-check then ends with the smallest failure it has already seen.
    if (aborted) return true;
    if (failures > 0) {
      if (outOfTime() || shrinkCalls >= maxShrinkCalls || !takeFromPool()) return true;
      shrinkCalls++;
    }
    try {
      const verdict = await opts.predicate(value);
      if (verdict === false) failed(value);
      return verdict !== false;
    } catch (e) {
      if (isFinding(e) && isTransportFailure(e)) {
        // The target did not answer: shrinking would only pay more timeouts for the same news.
        aborted = { error: new Finding({ ...e.evidence, seed: ctx.run.seed, counterexample: counterexampleJson(value) }) };
        return true;
      }
      if (isFinding(e)) {
        failed(value);
        throw e;
      }
      aborted = { error: e };
      return true;
    }
  });

  const params: fc.Parameters<[T]> = { seed: ctx.run.seed, numRuns: opts.numRuns ?? ctx.run.numRuns, endOnFailure: false, verbose: 0 };
  if (opts.path !== undefined) params.path = opts.path;
  const details = await fc.check(property, params);
  if (aborted) throw aborted.error;
  if (!details.failed) return;
  if (!details.counterexample) {
    // Failed without a counterexample: fast-check itself broke (e.g. an arbitrary threw).
    throw (details.errorInstance as Error | null) ?? new Error('fast-check reported a failure without a counterexample');
  }

  const [value] = details.counterexample;
  const base: Evidence = isFinding(details.errorInstance) ? { ...details.errorInstance.evidence } : { clause: opts.clause, message: 'the property does not hold for a generated value' };
  const evidence: Evidence = {
    ...base,
    seed: details.seed,
    counterexample: counterexampleJson(value),
  };
  if (details.counterexamplePath !== null) evidence.path = details.counterexamplePath;
  // fast-check's own shrinking, within the budget of predicate calls: whether it ran out.
  const original = counterexampleJson(firstFailing ?? value);
  evidence.shrunk = {
    calls: shrinkCalls,
    steps: details.numShrinks,
    minimal: shrinkCalls < maxShrinkCalls && !timeCut && !poolCut,
    original: original.length > 600 ? `${original.slice(0, 600)}…` : original,
  };
  const scenario = scenarioOf(value);
  if (scenario !== undefined && evidence.scenario === undefined) evidence.scenario = scenario;
  opts.onFinding?.(evidence);
  throw new Finding(evidence);
}

/**
 * The property's cases side by side first, then, only if needed, one at a time: the values are
 * drawn as checkProperty draws them (the same values, in the same order), and `trial.run` goes
 * over them `trial.n` at a time. When every case passes the trial (resolves, and not to false)
 * the trial's results are returned: what one case at a time would have concluded, in far fewer
 * round trips. When any case does not (returns false or throws: a deviation, a refusal, an
 * error), the trial is set aside and the property runs one case at a time with `opts.predicate`
 * (checkProperty), so findings, shrinking and replay data are exactly its own; then undefined
 * is returned. A stop (Disabled) during the trial ends the check as it would have one case at
 * a time. `trial.run` must judge nothing itself (no soft findings, no shared state changed):
 * only its own requests, whose order the target cannot observe.
 */
export async function checkPropertyTrial<T, R>(ctx: CheckContext, opts: PropertyOptions<T>, trial: { n: number; run: (value: T) => Promise<R> }): Promise<R[] | undefined> {
  const values: T[] = [];
  await checkProperty(ctx, { ...opts, predicate: async (value) => void values.push(value) });
  const results = await inParallel(values, trial.n, async (value) => {
    const r = await trial.run(value);
    if ((r as unknown) === false) throw new Error('the trial case did not hold');
    return r;
  }).catch((e: unknown) => {
    if (e instanceof Disabled || (e instanceof Error && e.name === 'Disabled')) throw e;
    return undefined;
  });
  if (results) return results;
  await checkProperty(ctx, opts);
  return undefined;
}
