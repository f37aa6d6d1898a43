/**
 * The credit plans of a few typical runs, as `wgc run` prints them before sending anything,
 * computed by the real planner (src/engine/credits.ts) from the suites' declarations, so the
 * CI guide shows current figures.
 */
import type { SuiteDef } from '../engine/check.ts';
import { DEFAULTS } from '../config/index.ts';
import { describeCreditPlan, planCredits } from '../engine/credits.ts';
import { code, table } from './markdown.ts';

/** Runs shown: with or without the control protocol, with or without a budget. */
const CASES: readonly { target: string; control: boolean; flags: string; maxCredits?: number; readOnly?: boolean }[] = [
  { target: 'with the test-control protocol', control: true, flags: '' },
  { target: 'supplied keys, no test-control protocol', control: false, flags: '' },
  { target: 'supplied keys, no test-control protocol', control: false, flags: '--max-credits 300', maxCredits: 300 },
  { target: 'supplied keys, no test-control protocol', control: false, flags: '--read-only', readOnly: true },
];

/** A table of typical runs and the plan line each prints (default --runs). */
export function renderCreditPlans(suites: readonly SuiteDef[]): string {
  const rows = CASES.map((c) => {
    const plan = planCredits(suites, {
      suites: [],
      readOnly: c.readOnly ?? false,
      numRuns: DEFAULTS.runs,
      ...(c.maxCredits !== undefined ? { maxCredits: c.maxCredits } : {}),
      ...(c.control ? { controlUrl: 'https://control.invalid', controlToken: 'unused' } : {}),
    });
    return [c.target, c.flags ? code(c.flags) : '—', code(describeCreditPlan(plan))];
  });
  return table(['Target', 'Flags', 'Printed before the first request'], rows);
}
