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
export function admit(ws: Workspace, nowMs: number, form: 'seconds' | 'http-date' = 'seconds', faults: FaultSet = NO_FAULTS): void {
  const rl = ws.rateLimit;
  if (rl.rpm === null) return;
  while (rl.hits.length > 0 && rl.hits[0]! <= nowMs - WINDOW_MS) rl.hits.shift();
  const cap = faults.has('rate-limit-one-early') ? rl.rpm - 1 : faults.has('rate-limit-one-late') ? rl.rpm + 1 : rl.rpm;
  if (rl.hits.length >= cap) {
    if (faults.has('rate-limit-relents')) rl.hits.shift();
    const oldest = rl.hits[rl.hits.length - rl.rpm] ?? nowMs;
    const retryAfter = Math.max(1, Math.ceil((oldest + WINDOW_MS - nowMs) / 1000));
    const header = form === 'seconds' ? String(retryAfter) : new Date(nowMs + retryAfter * 1000 + 999).toUTCString();
    throw new ApiError(429, `More than ${rl.rpm} calls a minute`, { retryAfterSeconds: retryAfter }, { 'retry-after': header });
  }
  rl.hits.push(nowMs);
}

/** Sets (or clears, with null) the limit; the window starts afresh. */
export function setLimit(ws: Workspace, rpm: number | null): void {
  ws.rateLimit = { rpm, hits: [] };
}
