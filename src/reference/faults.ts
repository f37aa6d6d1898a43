/**
 * Named faults: each switches off exactly one behaviour of the reference target so that it
 * breaks exactly one clause (or a tight group of clauses). The suite's self-test runs against
 * the reference with each fault and expects the named clauses, and only those, to fail.
 *
 * Every fault is checked at exactly one place in src/reference (grep for its name).
 */

/** One named fault. */
export interface FaultDef {
  /** kebab-case, stable. */
  name: string;
  /** Clause ids it breaks. */
  clauses: readonly string[];
  description: string;
}

/** Every fault the reference target knows. */
export const FAULTS: readonly FaultDef[] = [];

/** The faults switched on for one running reference. */
export interface FaultSet {
  /** True when the named fault is on. */
  has(name: string): boolean;
  readonly names: readonly string[];
}

/** Resolves fault names, rejecting unknown ones with the list of valid names. */
export function resolveFaults(names: readonly string[] = []): FaultSet {
  const known = new Set(FAULTS.map((f) => f.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    const valid = FAULTS.map((f) => f.name).join(', ') || '(none)';
    throw new Error(`unknown fault${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; valid faults: ${valid}`);
  }
  const on = new Set(names);
  return { has: (name) => on.has(name), names: [...on] };
}
