/**
 * The assertions every end-to-end run against a hostile target must pass, whatever the mode:
 * it ended by itself within its bound, with exit code 1 or 2 matching report.json, without a
 * crash, with memory bounded by the size cap, no request at the other origin, and no form of
 * any secret in anything it wrote.
 */
import { expect } from 'vitest';
import type { HostileTarget } from '../../../fixtures/hostile/server.ts';
import { DEFAULTS } from '../../../src/config/schema.ts';
import { findLeaks } from './leaks.ts';
import type { WgcRunOutcome } from './run-wgc.ts';

/** Largest window a brotli decoder may allocate (RFC 7932: 2^24 - 16 bytes); zlib's is 32 KiB. */
const DECODER_WINDOW = 16 * 1024 * 1024;
/** Run-to-run noise of a process's peak RSS (measured: calibration runs differ by up to ~30 MiB). */
const RSS_NOISE = 48 * 1024 * 1024;

/** Requests in flight at once: the default --max-in-flight, which the hostile runs keep (a suite's lanes run side by side, so a run reaches it). */
const IN_FLIGHT = DEFAULTS.maxInFlight;

/**
 * Peak RSS a run may add over the calibration run, for a --max-response-bytes `cap`. Per
 * request in flight the client holds at most the wire chunks, their concatenation, the decoded
 * text and its redacted copy, each at most the cap (4 × cap × IN_FLIGHT), and its decoder's
 * window (each decompression stream allocates its own, whichever threadpool thread runs it:
 * with a suite's lanes side by side, up to IN_FLIGHT brotli windows at once; a br-bomb run
 * measured 163 and 198 MiB over its calibration, past a bound that counted one window per
 * threadpool thread); V8 and malloc let a few requests' garbage pile up before it is collected
 * (16 × cap). Nothing may grow with what the target sends (200 MB bodies, 4 GiB bombs).
 */
export function memoryBound(cap: number): number {
  return (4 * IN_FLIGHT + 16) * cap + IN_FLIGHT * DECODER_WINDOW + RSS_NOISE;
}

/** report.json may not grow with what the target sends either (captured texts are bounded). */
export const REPORT_BOUND = 4 * 1024 * 1024;

export interface Expectation {
  boundMs: number;
  formula: string;
  /** Peak RSS of the calibration run. */
  baselineRss: number;
  /** --max-response-bytes of the run. */
  cap: number;
  /** Extra secrets to look for (the control token). */
  secrets: readonly string[];
  harness?: boolean;
}

/** Asserts everything a hostile run must satisfy; returns the report text (compact JSON). */
export function expectCalmRun(label: string, run: WgcRunOutcome, target: HostileTarget, e: Expectation): string {
  const where = `${label} (${run.argv.slice(1).join(' ')})\nstderr: ${run.stderr.slice(-1500)}`;
  expect(run.killed, `${where}\nkilled at the hard limit: the run did not end`).toBe(false);
  expect(run.ms, `${where}\nbound ${e.formula}`).toBeLessThanOrEqual(e.boundMs);
  expect(run.report, `${where}\nno report.json`).toBeDefined();
  const report = run.report!;
  expect([1, 2], where).toContain(run.exitCode);
  expect(report.summary.exitCode, where).toBe(run.exitCode);
  // A crash in main() prints "harness error:" with a stack; the report is then missing anyway.
  expect(run.stderr, where).not.toMatch(/harness error:|Unhandled|FATAL|out of memory/i);
  if (e.harness) {
    // A broken control endpoint is the harness's problem: inconclusive, never "not conformant",
    // reported either per check (provisioning failed) or for the run (refused up front).
    expect(run.exitCode, where).toBe(2);
    expect(report.summary.mustFailed, where).toEqual([]);
    expect(report.summary.harnessErrors.length + report.meta.runErrors.length, where).toBeGreaterThan(0);
  } else {
    expect(report.meta.runErrors, where).toEqual([]);
    const broken = report.checks.filter((c) => c.outcome === 'harnessError').map((c) => `${c.checkId}: ${c.reason}`);
    expect(broken, `${where}\nthe harness broke on target data`).toEqual([]);
  }
  expect(run.peakRss - e.baselineRss, `${where}\npeak RSS ${mb(run.peakRss)} vs calibration ${mb(e.baselineRss)}`).toBeLessThanOrEqual(memoryBound(e.cap));
  const reportFile = Object.entries(run.files).find(([p]) => p.endsWith('report.json'))?.[1] ?? '';
  expect(reportFile.length, where).toBeLessThanOrEqual(REPORT_BOUND);
  expect(target.stats.otherOrigin, `${where}\nthe other origin was contacted`).toEqual([]);
  const texts = { ...run.files, stdout: run.stdout, stderr: run.stderr };
  expect(findLeaks(texts, [...target.knownSecrets(), ...e.secrets]), where).toEqual([]);
  return JSON.stringify(report);
}

export const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MiB`;
