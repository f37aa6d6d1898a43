/**
 * Helpers of the definitions suite: the cast names, set-up creates whose failure makes a
 * check not observable (a refused set-up is not the clause under test), clean-up by archive,
 * refusal judging, timestamps, canonical JSON, and a per-clause finding log that keeps one
 * piece of evidence per clause (de-duplicated) while a check goes through many scenarios.
 */
import type fc from 'fast-check';
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { expectErrorEnvelope } from '../../src/engine/expect.ts';
import { Finding, NotObservable, type Evidence } from '../../src/engine/finding.ts';
import { checkProperty, counterexampleJson } from '../../src/engine/property.ts';
import { minimize, smallerValues } from '../../src/generators/minimize.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { loadSpec, type LoadedSpec } from '../../src/spec/load.ts';
import type { JsonSchema } from '../../src/spec/types.ts';
import { enumValueSlugs, is2xx, minimalCreateBody, type DefinitionView } from '../_shared/definitions.ts';
import { brief, isObject } from '../_shared/json.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';

/** Cast name of the owner's key with admin and graph:read. */
export const ADMIN = 'admin';
/** Cast name of the graph:read key. */
export const READER = 'reader';

/** The service API document (loaded once per process). */
export function apiSpec(): Promise<LoadedSpec> {
  return loadSpec();
}

/** The reader key when the target supplies one; reads then also go through it. */
export function optionalReader(ctx: CheckContext): KeyHandle | undefined {
  try {
    return ctx.key(READER);
  } catch (e) {
    if (e instanceof NotObservable || (e instanceof Error && e.name === 'NotObservable')) return undefined;
    throw e;
  }
}

/** "201 {...}" or the transport problem, for messages. */
export function shown(ex: Exchange): string {
  const r = ex.response;
  if (!r) return `no response (${ex.error?.kind ?? 'unknown'}: ${ex.error?.message ?? ''})`;
  return `${r.status} ${brief(r.isJson ? r.json : r.text)}`;
}

/** A created definition; `archived()` tells the clean-up that the check archived it already. */
export interface Created {
  definition: DefinitionView;
  exchange: Exchange;
  body: Record<string, unknown>;
  archived(): void;
}

/**
 * Creates a definition (minimal body plus `overrides`, named with the run prefix) and, when it
 * was accepted, archives it at clean-up unless the check did. Never throws for the target's answer.
 */
export async function tryCreate(
  ctx: CheckContext,
  key: KeyHandle,
  overrides: Record<string, unknown> = {},
): Promise<Created | { exchange: Exchange; body: Record<string, unknown>; definition?: undefined }> {
  const body = minimalCreateBody(ctx, overrides);
  const exchange = await ctx.api.send({ method: 'POST', path: '/definitions', key, body });
  const json = exchange.response?.json;
  if (!is2xx(exchange) || !isObject(json) || typeof json.id !== 'string') return { exchange, body };
  const definition = json as unknown as DefinitionView;
  let done = false;
  ctx.cleanup(async () => {
    if (!done) await archive(ctx, key, definition.id, 'conformance run clean-up');
  });
  return { definition, exchange, body, archived: () => (done = true) };
}

/**
 * Creates a definition the check needs as scenery. A refused create makes the check not
 * observable: the clause under test is not the create (DEF-012 judges creates).
 */
export async function setupDefinition(ctx: CheckContext, key: KeyHandle, overrides: Record<string, unknown> = {}): Promise<Created> {
  const made = await tryCreate(ctx, key, overrides);
  if (!made.definition) throw new NotObservable(`a valid definition create (needed as set-up) was not accepted: ${shown(made.exchange)}`);
  return made;
}

/** POST /definitions/{id}/archive with a reason. */
export function archive(ctx: CheckContext, key: KeyHandle, id: string, reason = 'conformance check', extra: Record<string, unknown> = {}): Promise<Exchange> {
  return ctx.api.send({ method: 'POST', path: `/definitions/${encodeURIComponent(id)}/archive`, key, body: { reason, ...extra } });
}

/** Two enum values, for checks that need slugs (archiveEnumValueSlugs, merge-value). */
export const TWO_VALUES = { valueType: 'enum', enumValues: [{ label: 'Alpha' }, { label: 'Beta' }] } as const;

/** The slugs of a definition's enum values, in order; not observable when they cannot be read. */
export function slugsOf(def: DefinitionView, want: number, ex: Exchange): string[] {
  const slugs = enumValueSlugs(def).filter((s) => s !== '');
  if (slugs.length < want) throw new NotObservable(`the created definition does not show ${want} enum value slugs (needed as set-up): ${shown(ex)}`);
  return slugs;
}

/** Milliseconds of a timestamp, or undefined when it does not parse. */
export function timeOf(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

import { canonical } from '../_shared/json.ts';
export { canonical };

/** camelCase request names to the snake_case of the Definition (refreshPolicy → refresh_policy). */
export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Equal as JSON values; numbers within a relative 1e-9 (servers may store doubles differently). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  return canonical(a) === canonical(b);
}

/**
 * The answer is a refusal with one of `statuses` and the error envelope; returns the evidence
 * (attributed to `clause`) when it is not. Transport refusals from configuration propagate.
 */
export function refusalEvidence(clause: string, ex: Exchange, statuses: number | readonly number[]): Evidence | undefined {
  try {
    expectErrorEnvelope({ envelope: clause }, ex, statuses);
    return undefined;
  } catch (e) {
    if (e instanceof Finding || (e instanceof Error && e.name === 'Finding' && 'evidence' in e)) return (e as Finding).evidence;
    throw e;
  }
}

/**
 * Runs `fn` on `numRuns` generated values (the run's seed) through checkProperty, without
 * stopping at the first deviation: `fn` records evidence for each clause it judges, so every
 * clause of the check is judged over every run. `path` replays the value (fast-check path).
 *
 * The runs are independent, so they go CHECK_PARALLEL at a time: the values are drawn first
 * (the same values, in the same order, as one at a time), then `fn` runs on each with a context
 * of its own (`runCtx`: its evidence is kept and reported in run order) and returns what the
 * caller gathers, in run order. When a run throws, what the runs before it found is reported,
 * the runs after it are dropped, and the failing run is replayed alone through checkProperty
 * (its path), which shrinks a Finding as before.
 */
export async function forEachGenerated<T, R = void>(
  ctx: CheckContext,
  clause: string,
  arbitrary: fc.Arbitrary<T>,
  fn: (value: T, path: string, runCtx: CheckContext) => Promise<R>,
  shrink?: { schema: JsonSchema },
): Promise<R[]> {
  const values: T[] = [];
  await checkProperty(ctx, { clause, arbitrary, predicate: async (value) => void values.push(value) });
  const once = async (value: T, i: number) => {
    const found: Evidence[] = [];
    const runCtx = Object.create(ctx, { softFail: { value: (e: Evidence) => void found.push(e) } }) as CheckContext;
    try {
      return { found, result: await fn(value, String(i), runCtx) };
    } catch (error) {
      return { found, error: error ?? new Error('a generated run threw undefined') };
    }
  };
  const runs = await inParallel(values, CHECK_PARALLEL, once);
  if (shrink) await shrinkFirstDeviation(values, runs, once, shrink.schema);
  const out: R[] = [];
  for (const [i, run] of runs.entries()) {
    if (!('error' in run)) {
      for (const e of run.found) ctx.softFail(e);
      out.push(run.result);
      continue;
    }
    // Replays the failing value alone (fast-check path), reporting what it finds again, so a
    // Finding is shrunk and carries its replay data.
    await checkProperty(ctx, { clause, arbitrary, path: String(i), predicate: async (value) => void (await fn(value, String(i), ctx)) });
    throw run.error;
  }
  return out;
}

/** Candidates tried at most when shrinking a generated value that deviated (each sends its requests). */
export const SHRINK_BUDGET = 30;

/**
 * The first generated value whose run recorded deviations is shrunk structurally
 * (src/generators/minimize.ts: optional fields and array items first, largest cut first, then
 * long strings): a candidate is kept when its run records a deviation of every clause the
 * original's did, so no finding is lost; the run's evidence is then the smallest such run's,
 * marked with how it was shrunk. One value per check, within SHRINK_BUDGET candidates.
 */
async function shrinkFirstDeviation<T, R>(
  values: readonly T[],
  runs: ({ found: Evidence[]; result: R } | { found: Evidence[]; error: unknown })[],
  once: (value: T, i: number) => Promise<{ found: Evidence[]; result: R } | { found: Evidence[]; error: unknown }>,
  schema: JsonSchema,
): Promise<void> {
  const i = runs.findIndex((r) => !('error' in r) && r.found.length > 0);
  if (i < 0) return;
  const run = runs[i]!;
  const clauses = new Set(run.found.map((e) => e.clause));
  let smallest = run.found;
  const m = await minimize<T>(
    values[i] as T,
    (v) => smallerValues(schema, v),
    async (candidate) => {
      const tried = await once(candidate, i);
      if ('error' in tried || ![...clauses].every((c) => tried.found.some((e) => e.clause === c))) return false;
      smallest = tried.found;
      return true;
    },
    SHRINK_BUDGET,
  );
  const original = counterexampleJson(values[i]);
  const shrunk = { calls: m.calls, steps: m.steps, minimal: m.minimal, original: original.length > 600 ? `${original.slice(0, 600)}…` : original };
  run.found = smallest.map((e) => ({ ...e, shrunk }));
}

/** Replay data for evidence about one generated value. */
export function replay(ctx: CheckContext, value: unknown, path: string): Pick<Evidence, 'seed' | 'path' | 'counterexample'> {
  return { seed: ctx.run.seed, path, counterexample: counterexampleJson(value) };
}

/**
 * The body without its decision trace: checks of DEF clauses leave traces to
 * definitions/valid-traces (TRACE-001), so that a refused trace is never charged to them.
 */
export function withoutTrace(body: Record<string, unknown>): Record<string, unknown> {
  const { decision_trace: _trace, ...rest } = body;
  return rest;
}

/**
 * The body with the enum values of `field` made distinct: only the first value of each label
 * and of each given slug is kept. The seed neither allows nor forbids duplicates, so a check
 * of valid writes does not send them (a server may refuse them).
 */
export function distinctEnumValues(body: Record<string, unknown>, field: string): Record<string, unknown> {
  const values = body[field];
  if (!Array.isArray(values)) return { ...body };
  const labels = new Set<unknown>();
  const slugs = new Set<unknown>();
  const kept = values.filter((v) => {
    if (!isObject(v) || labels.has(v.label) || (v.slug !== undefined && slugs.has(v.slug))) return false;
    labels.add(v.label);
    if (v.slug !== undefined) slugs.add(v.slug);
    return true;
  });
  return { ...body, [field]: kept };
}
