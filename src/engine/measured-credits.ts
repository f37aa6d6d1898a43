/**
 * The measured credit plan (specs/credit-plan.json): what each check is charged on the
 * reference target, as `fixed + perRun × property runs`, measured by `npm run credit-plan`
 * (scripts/credit-plan.ts: the benchmark's recording pass, one check at a time with the ledgers
 * read between checks, at two property-run counts) and committed as generated data.
 *
 * A check that declares no `credits` is planned from here; its ceiling (`maxCredits`) stays
 * declared, because no single target shows the most a conformant one may charge. A check that
 * declares its credits is held to the same measurement by test/reference/credit-plan.test.ts,
 * which also fails when this file is stale. The file is read once, on first use.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MEASURED_PLAN_PATH = fileURLToPath(new URL('../../specs/credit-plan.json', import.meta.url));

/** One check's measured charge: `fixed + perRun × numRuns`. */
export interface MeasuredCharge {
  fixed: number;
  perRun: number;
}

export interface MeasuredPlan {
  /** The property seed and run counts it was measured with. */
  seed: number;
  runs: [number, number];
  checks: Record<string, MeasuredCharge>;
}

let loaded: MeasuredPlan | undefined;
/** Set by the measuring pass: unmeasured checks plan 0 while they are being measured. */
let measuring = false;

/** For scripts/credit-plan.ts: plan unmeasured checks as 0 while measuring them. */
export function startMeasuring(): void {
  measuring = true;
}

/** The committed measured plan. */
export function measuredPlan(): MeasuredPlan {
  loaded ??= JSON.parse(readFileSync(MEASURED_PLAN_PATH, 'utf8')) as MeasuredPlan;
  return loaded;
}

/** What `checkId` is charged at `numRuns` property runs per the measured plan; throws when it was never measured. */
export function measuredCredits(checkId: string, numRuns: number): number {
  const m = measuring ? undefined : measuredPlan().checks[checkId];
  if (!m && measuring) return 0;
  if (!m) throw new Error(`check ${checkId} declares no credits and specs/credit-plan.json has no measurement of it: run npm run credit-plan`);
  return m.fixed + m.perRun * numRuns;
}
