/**
 * What an end-to-end run against each hostile mode must show in report.json: the evidence
 * that names what happened (a transport error kind, the status the target answered, the
 * walk that did not end), and whether harness errors are the honest outcome (only when the
 * control endpoint is what is broken).
 */
import type { HostileMode, HostileOptions } from '../../../fixtures/hostile/server.ts';

/** The timeout of the modes whose evidence is a body reaching the response cap (ModeCase.timeoutMs). */
const CAP_TIMEOUT_MS = 10_000;

export interface ModeCase {
  mode: HostileMode;
  /** Found in report.json: the report says what happened. */
  evidence: RegExp;
  /** The time a request may take is the timeout (the target answers slowly or never). */
  waits: boolean;
  /** The run ends inconclusive with harness errors (exit 2), never with a target failure. */
  harness?: boolean;
  /** Walks of this mode may send up to a page cap of requests each (see the bound). */
  pages?: boolean;
  /** Retries of 429 answers: the longest wait of one (ms). */
  retryWaitMs?: number;
  /**
   * Per-request timeout of this mode's run where the default is too short for its evidence: a
   * body must reach the response cap before the timeout, and the target streams it (a bomb
   * compressed on the fly) from the test's own process, which a loaded machine slows: under
   * npm test the gzip bomb had not reached the 1 MiB cap within 1.5 s (a timeout, not the
   * decompression bound, ended the request).
   */
  timeoutMs?: number;
  options?: HostileOptions;
}

const kind = (k: string): RegExp => new RegExp(`"kind":"${k}"`);
const status = (s: string): RegExp => new RegExp(`"status":${s}\\b`);

/** Every mode, run once on a small suite. */
export const MODE_CASES: readonly ModeCase[] = [
  { mode: 'silent', evidence: kind('timeout'), waits: true },
  { mode: 'slow-drip', evidence: kind('timeout'), waits: true },
  { mode: 'headers-then-stall', evidence: kind('timeout'), waits: true },
  { mode: 'slowloris-headers', evidence: kind('timeout'), waits: true },
  { mode: 'status-1xx-storm', evidence: kind('timeout'), waits: true },
  { mode: 'half-json', evidence: kind('connection'), waits: false },
  { mode: 'not-http', evidence: kind('connection'), waits: false },
  { mode: 'huge-headers', evidence: kind('too-large'), waits: false },
  { mode: 'invalid-json', evidence: /items\\": \[\{\\"id\\": \\"1\\"\},\]/, waits: false },
  { mode: 'empty-200', evidence: /"status":200,"headers":\{[^}]*"content-length":"0"/, waits: false },
  { mode: 'wrong-content-type', evidence: /"content-type":"(text\/plain|text\/html; charset=utf-8|application\/octet-stream)"/, waits: false },
  { mode: 'html-error-page', evidence: status('502'), waits: false },
  { mode: 'status-999', evidence: status('999'), waits: false },
  { mode: 'huge-body', evidence: kind('too-large'), waits: false, timeoutMs: CAP_TIMEOUT_MS },
  { mode: 'gzip-bomb', evidence: kind('decompression'), waits: false, timeoutMs: CAP_TIMEOUT_MS },
  { mode: 'deflate-bomb', evidence: kind('decompression'), waits: false, timeoutMs: CAP_TIMEOUT_MS },
  { mode: 'br-bomb', evidence: kind('decompression'), waits: false, timeoutMs: CAP_TIMEOUT_MS },
  { mode: 'deep-json', evidence: kind('too-large'), waits: false },
  { mode: 'endless-cursor', evidence: /more than \d+ pages|still not null after/, waits: false, pages: true },
  { mode: 'cursor-loop', evidence: /nextCursor [^"]*repeat/, waits: false, pages: true },
  { mode: 'redirect-other-origin', evidence: status('30[12378]'), waits: false },
  { mode: 'echo-key', evidence: /"code":"ECHO"|\\"code\\":\\"ECHO\\"/, waits: false },
  // Retry-After rotates: none and garbage are retried after 1 s, zero at once, a day and a far date never.
  { mode: 'always-429', evidence: status('429'), waits: false, retryWaitMs: 1_000, options: { settings: { retryAfter: 'mixed' } } },
  { mode: 'control-broken', evidence: /provisioning suite|test-control protocol at --control-url is unusable/, waits: false, harness: true },
];

/** The modes the calibration stands for: every request fails at once with a connection reset. */
export const CALIBRATION_MODE: HostileMode = 'reset';
