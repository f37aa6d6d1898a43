/**
 * What `wgc run` needs of the suite definitions before the gate opens, and no more: each suite's
 * checks (id, title, clauses) and the run's credit plan. The worker thread the run starts before
 * vitest (prewarm.ts) imports every suite anyway: it works the outline out there and hands it
 * over (a MessagePort), so that the command's thread does not import the suites a second time
 * while it starts vitest, the reference and the preflight. The plan is computed from the same
 * definitions and the same figures of the run (planCredits), so it is the plan the command
 * would have computed; anything the command cannot take from an outline (keys to match against
 * the casts, a selection by --check) it works out from the definitions itself, as before.
 */
import type { SuiteDef } from './check.ts';
import { hasControl, type RunContext } from './context.ts';
import { planCredits, type CreditPlan } from './credits.ts';
import { loadSuiteDefs, type SuiteFile } from './discover.ts';

/** A suite as the command reads it before the gate opens. */
export interface SuiteOutline {
  readonly name: string;
  readonly checks: readonly { readonly id: string; readonly title: string; readonly clauses: readonly string[] }[];
}

/** The run's figures the plan reads (src/engine/credits.ts), with the control protocol's presence as a flag. */
export interface PlanFigures {
  suites: string[];
  checks?: string[];
  readOnly: boolean;
  numRuns: number;
  seed: number;
  maxCredits?: number;
  control: boolean;
}

/** The figures of a run context. */
export function figuresOf(run: RunContext): PlanFigures {
  return {
    suites: [...run.suites],
    ...(run.checks && run.checks.length > 0 ? { checks: [...run.checks] } : {}),
    readOnly: run.readOnly,
    numRuns: run.numRuns,
    seed: run.seed,
    ...(run.maxCredits !== undefined ? { maxCredits: run.maxCredits } : {}),
    control: hasControl(run),
  };
}

export type Outline = { suites: SuiteOutline[]; plan: CreditPlan; figures: PlanFigures } | { error: string };

/** The outline of definitions already loaded. */
export function outlineOf(defs: readonly SuiteDef[]): SuiteOutline[] {
  return defs.map((d) => ({ name: d.name, checks: d.checks.map((c) => ({ id: c.id, title: c.title, clauses: [...c.clauses] })) }));
}

/** The plan of `defs` for `figures` (a stand-in control URL and token where the run has them: only their presence is read). */
export function planFor(defs: readonly SuiteDef[], figures: PlanFigures): CreditPlan {
  const { control, ...rest } = figures;
  return planCredits(defs, { ...rest, ...(control ? { controlUrl: 'control', controlToken: 'control' } : {}) });
}

/** Loads the suites of `files` and outlines them with the plan; a problem comes back as its message (the command then loads them itself and reports it). */
export async function outlineSuites(files: readonly SuiteFile[], root: string, figures: PlanFigures): Promise<Outline> {
  try {
    const defs = await loadSuiteDefs(files, root);
    return { suites: outlineOf(defs), plan: planFor(defs, figures), figures };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}
