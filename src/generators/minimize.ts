/**
 * Structural shrinking of a value a schema admits, for counterexamples people can read (issue 29
 * item 5). fast-check shrinks the first field deeply before it looks at the next, so a small
 * budget is spent shortening a 3,000-character description while 22 enum values stay. Here the
 * structure goes first, the largest cut first: optional properties left out (the biggest first),
 * arrays cut to their minimum and to half, single items dropped; then plain strings cut to their
 * minimum length. Every candidate still satisfies the schema (required properties, minItems,
 * minLength; formatted and patterned strings are never cut), so a candidate that still fails is a
 * counterexample in its own right, not a different, invalid request.
 */
import type { JsonSchema } from '../spec/types.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const size = (v: unknown): number => JSON.stringify(v ?? null).length;

/** One smaller candidate: the value, and the edit that made it (stable across rounds where it names a property, not an item). */
export interface Candidate {
  edit: string;
  value: unknown;
}

/** Candidates strictly smaller than `value`, each admitted by `schema`, the largest cuts first. */
export function* smallerValues(schema: JsonSchema, value: unknown, at = ''): Generator<Candidate> {
  if (isObject(value) && schema.properties) {
    const required = new Set(schema.required ?? []);
    const keys = Object.keys(value).sort((a, b) => size(value[b]) - size(value[a]));
    const optional = keys.filter((k) => !required.has(k));
    // Every optional property at once, then one at a time.
    if (optional.length > 1) yield { edit: `required-only ${at}/`, value: Object.fromEntries(Object.entries(value).filter(([k]) => required.has(k))) };
    for (const k of optional) {
      const { [k]: _dropped, ...rest } = value;
      yield { edit: `drop ${at}/${k}`, value: rest };
    }
    for (const k of keys) {
      const child = schema.properties[k];
      if (!child) continue;
      for (const c of smallerValues(child, value[k], `${at}/${k}`)) yield { edit: c.edit, value: { ...value, [k]: c.value } };
    }
    return;
  }
  if (Array.isArray(value) && schema.items) {
    const min = schema.minItems ?? 0;
    // Item edits name positions, which move: they are never skipped as tried before ("#").
    if (value.length > min) {
      yield { edit: `# ${at} to ${min}`, value: value.slice(0, min) };
      // Halves (each a bisection step), then single items dropped.
      const half = Math.max(min, Math.floor(value.length / 2));
      if (half > min && half < value.length) yield { edit: `# ${at} first half`, value: value.slice(0, half) };
      if (value.length - half >= Math.max(min, 1) && half > 0) yield { edit: `# ${at} second half`, value: value.slice(half) };
      for (let i = value.length - 1; i >= 0; i--) yield { edit: `# ${at} without ${i}`, value: [...value.slice(0, i), ...value.slice(i + 1)] };
    }
    for (const [i, item] of value.entries()) for (const c of smallerValues(schema.items, item, `${at}/${i}`)) yield { edit: `# ${c.edit}`, value: value.map((x, j) => (j === i ? c.value : x)) };
    return;
  }
  if (typeof value === 'string' && schema.format === undefined && schema.pattern === undefined && schema.enum === undefined && schema.const === undefined) {
    // Code points, not UTF-16 units: a cut never splits a surrogate pair.
    const points = Array.from(value);
    const min = Math.max(schema.minLength ?? 0, 1);
    if (points.length > min) yield { edit: `cut ${at}`, value: points.slice(0, min).join('') };
  }
}

/** What a minimization did. */
export interface Minimized<T> {
  value: T;
  /** Candidates tried (each one predicate call: requests sent). */
  calls: number;
  /** Candidates kept (each one smaller than the last). */
  steps: number;
  /** True when no candidate of the last value still failed; false when the budget ran out first. */
  minimal: boolean;
}

/**
 * Greedy descent: the first candidate for which `stillFails` holds becomes the current value,
 * until none does or `budget` candidates were tried. An edit of a property (not of an item) that
 * did not fail once is not tried again in later rounds (the same field is needed then too, as a
 * rule); a round that skipped such edits and found nothing is followed by one that tries them
 * all, so `minimal` is claimed only after a round in which every candidate was tried.
 */
export async function minimize<T>(value: T, candidates: (v: T) => Iterable<Candidate>, stillFails: (v: T) => Promise<boolean>, budget: number): Promise<Minimized<T>> {
  let current = value;
  let calls = 0;
  let steps = 0;
  const held = new Set<string>();
  let skipping = true;
  for (;;) {
    let advanced = false;
    let skipped = false;
    for (const c of candidates(current)) {
      if (skipping && held.has(c.edit)) {
        skipped = true;
        continue;
      }
      if (calls >= budget) return { value: current, calls, steps, minimal: false };
      calls++;
      if (await stillFails(c.value as T)) {
        current = c.value as T;
        steps++;
        advanced = true;
        break;
      }
      if (!c.edit.startsWith('#')) held.add(c.edit);
    }
    if (advanced) continue;
    if (skipping && skipped) {
      skipping = false;
      continue;
    }
    return { value: current, calls, steps, minimal: true };
  }
}
