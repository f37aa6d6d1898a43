/**
 * Per-workspace rate limit, set through the control protocol: a sliding one-minute window
 * of admitted API calls. Refused calls (429) are not counted.
 */
import { ApiError } from './errors.ts';
import { NO_FAULTS, type FaultSet } from './faults.ts';
import type { Workspace } from './model.ts';

const WINDOW_MS = 60_000;

/**
 * Admits one call or throws 429 with a Retry-After: whole seconds until a slot frees, or
 * (`http-date`) the HTTP date at which it frees.
 */
// Stryker disable next-line StringLiteral: the default form is never used: every caller passes the variant's form
export function admit(ws: Workspace, nowMs: number, form: 'seconds' | 'http-date' = 'seconds', faults: FaultSet = NO_FAULTS): void {
  const rl = ws.rateLimit;
  if (rl.rpm === null) return;
  // Stryker disable next-line all: when a call is admitted again is not shown (8: rate-limit numbers not shown; the control protocol says only that calls past the limit within a minute get 429), and no check waits a minute to see it
  while (rl.hits.length > 0 && rl.hits[0]! <= nowMs - WINDOW_MS) rl.hits.shift();
  const cap = faults.has('rate-limit-one-early') ? rl.rpm - 1 : faults.has('rate-limit-one-late') ? rl.rpm + 1 : rl.rpm;
  if (rl.hits.length >= cap) {
    if (faults.has('rate-limit-relents')) rl.hits.shift();
    // Stryker disable all: Retry-After is not in the document (7 and 8 show no header on a 429): its value and form are free; the suite reads it only to pace its retries
    const oldest = rl.hits[rl.hits.length - rl.rpm] ?? nowMs;
    const retryAfter = Math.max(1, Math.ceil((oldest + WINDOW_MS - nowMs) / 1000));
    const header = form === 'seconds' ? String(retryAfter) : new Date(nowMs + retryAfter * 1000 + 999).toUTCString();
    // Stryker restore all
    // Stryker disable next-line ObjectLiteral: the error's data (7 rule 4: not shown) and a Retry-After header (not in the document) are free
    throw new ApiError(429, `More than ${rl.rpm} calls a minute`, { retryAfterSeconds: retryAfter }, { 'retry-after': header });
  }
  rl.hits.push(nowMs);
}

/** Sets (or clears, with null) the limit; the window starts afresh. */
export function setLimit(ws: Workspace, rpm: number | null): void {
  ws.rateLimit = { rpm, hits: [] };
}
