/**
 * Issue 17 item 5, a slow target is bounded: a run against a reference that answers every
 * request correctly but late (the latency proxy, 500 ms each way: a second per round trip) with
 * a short --max-duration ends with its report soon after the budget and its grace, and no check
 * fails or errs because of the delay alone: what ran passed, what could not run is disabled.
 */
import { describe, expect, test } from 'vitest';
import { runLatencyBench } from '../../src/bench/latency.ts';

/**
 * The budget: the run's fixed costs at a second per round trip (preflight, control protocol
 * check, provisioning) take about 8 s of it on an idle machine; 25 s leaves checks time to end
 * on a loaded one.
 */
const BUDGET_S = 25;
const GRACE_S = 5;

describe('a target answering a second late, with --max-duration', () => {
  test('ends with a complete report after about budget + grace; nothing fails for the delay', async () => {
    const bench = await runLatencyBench({
      latencies: [500],
      iterations: 1,
      runArgs: ['--max-duration', `${BUDGET_S}s`, '--grace', `${GRACE_S}s`, '--concurrency', '9', '--max-in-flight', '32', '--seed', '1'],
    });
    const run = bench.latencies[0]!.runs[0]!;
    // A report was written (runLatencyBench throws otherwise), with what the run saw.
    expect(run.counts['failed'] ?? 0, JSON.stringify(run)).toBe(0);
    expect(run.counts['harnessError'] ?? 0, JSON.stringify(run)).toBe(0);
    // Some checks ran to the end within the budget, so the absence of failures means something.
    expect(run.counts['passed'] ?? 0).toBeGreaterThan(0);
    // The budget cut the rest: disabled, not failed.
    expect(run.counts['disabled'] ?? 0).toBeGreaterThan(0);
    expect([0, 2]).toContain(run.exitCode);
    // The bound itself, with room for a loaded 2-core host (process start, report writing): the
    // run must not run on to its end (several minutes at this latency).
    expect(run.wallMs).toBeLessThan((BUDGET_S + GRACE_S + 20) * 1000);
  }, 120_000);
});
