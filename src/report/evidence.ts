/**
 * Turns check findings into report evidence: each exchange gets its curl command, and
 * identical findings (same clause, message and request line) are folded into one with an
 * occurrence count, the way Schemathesis de-duplicates failures.
 */
import type { Exchange } from '../http/exchange.ts';
import type { Evidence } from '../engine/finding.ts';
import type { ReportEvidence, ReportExchange } from './model.ts';
import { toCurl } from '../http/curl.ts';

/** The exchange as the report holds it: the parsed JSON copy is dropped (the text is kept), curl added. */
export function toReportExchange(ex: Exchange): ReportExchange {
  const out: ReportExchange = {
    id: ex.id,
    request: {
      method: ex.request.method,
      url: ex.request.url,
      headers: { ...ex.request.headers },
      ...(ex.request.body !== undefined ? { body: ex.request.body } : {}),
    },
    startedAt: ex.startedAt,
    durationMs: ex.durationMs,
    retries: ex.retries,
    curl: toCurl(ex),
  };
  if (ex.response) {
    const r = ex.response;
    out.response = { status: r.status, headers: { ...r.headers }, text: r.text, isJson: r.isJson, bytes: r.bytes, truncated: r.truncated };
  }
  if (ex.error) out.error = { kind: ex.error.kind, message: ex.error.message };
  return out;
}

/** "shrunk in 4 steps (12 candidates tried): minimal" or "...: the budget ran out before it was minimal". */
export function shrunkText(s: NonNullable<Evidence['shrunk']>): string {
  return `shrunk in ${s.steps} step${s.steps === 1 ? '' : 's'} (${s.calls} candidate${s.calls === 1 ? '' : 's'} tried): ${s.minimal ? 'minimal (no smaller value still fails)' : 'the budget ran out before it was minimal'}`;
}

/** "POST https://host/api/v1/definitions", the request line findings are de-duplicated on. */
export function requestLine(ex: { request: { method: string; url: string } } | undefined): string {
  return ex ? `${ex.request.method} ${ex.request.url}` : '';
}

/** One finding of one check as report evidence. */
export function toReportEvidence(e: Evidence, checkId: string): ReportEvidence {
  const out: ReportEvidence = { clause: e.clause, checkId, message: e.message, occurrences: 1 };
  if (e.expected !== undefined) out.expected = e.expected;
  if (e.received !== undefined) out.received = e.received;
  if (e.exchange) out.exchange = toReportExchange(e.exchange);
  if (e.context && e.context.length > 0) out.context = e.context.map(toReportExchange);
  if (e.seed !== undefined) out.seed = e.seed;
  if (e.path !== undefined) out.path = e.path;
  if (e.scenario !== undefined) out.scenario = e.scenario;
  if (e.counterexample !== undefined) out.counterexample = e.counterexample;
  if (e.shrunk !== undefined) out.shrunk = e.shrunk;
  if (e.from !== undefined) out.from = e.from;
  return out;
}

/** Folds evidence with the same clause, message and request line; the first keeps its place. */
export function dedupeEvidence(list: readonly ReportEvidence[]): ReportEvidence[] {
  const byKey = new Map<string, ReportEvidence>();
  for (const e of list) {
    const key = JSON.stringify([e.clause, e.message, requestLine(e.exchange)]);
    const seen = byKey.get(key);
    if (seen) seen.occurrences += e.occurrences;
    else byKey.set(key, { ...e });
  }
  return [...byKey.values()];
}

/** The first line a summary shows for a piece of evidence: message and request line. */
export function evidenceLine(e: ReportEvidence): string {
  const status = e.exchange?.response ? ` → ${e.exchange.response.status}` : e.exchange?.error ? ` → ${e.exchange.error.kind}` : '';
  const req = e.exchange ? ` (${requestLine(e.exchange)}${status})` : '';
  return `${e.message}${req}`;
}
