/**
 * A body sent with a content type other than JSON is refused (seed part 4, "bodies are JSON").
 * Accepted: 400, or 415 (not in the table of part 7, so its envelope has defined false).
 * The bodies are otherwise valid, so only the content type can be the reason for a refusal.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { minimalCreateBody } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { archiveIfCreated } from '../_shared/ops-fixtures.ts';
import { scratchDefinition, sendRaw, unavailable, type BodyEndpoint } from './bodies.ts';
import { ENVELOPE_CLAUSES, judgeEnvelope } from './envelope.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

/** The body as an HTML form would send it (nested values as JSON text). */
function formEncoded(body: Record<string, unknown>): string {
  return new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();
}

interface Case {
  ep: Pick<BodyEndpoint, 'method' | 'path'>;
  contentType: string;
  text: string;
}

export const nonJsonContentType: CheckDef = {
  id: 'errors/non-json-content-type',
  title: 'Bodies sent as text/plain or form-urlencoded are refused with 400, or 415 with defined false',
  clauses: ['ERR-006', ...ENVELOPE_CLAUSES],
  needs: { mutation: true },
  // The scratch definition for PATCH and its clean-up archive.
  credits: 2,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-006');
    const owner = ctx.key('owner');
    const create = { method: 'POST' as const, path: '/definitions' };
    const body = minimalCreateBody(ctx);
    const cases: Case[] = [
      { ep: create, contentType: 'text/plain', text: JSON.stringify(body) },
      { ep: create, contentType: 'text/plain; charset=utf-8', text: JSON.stringify(minimalCreateBody(ctx)) },
      { ep: create, contentType: 'application/x-www-form-urlencoded', text: formEncoded(minimalCreateBody(ctx)) },
    ];
    const id = await scratchDefinition(ctx, owner);
    if (id !== undefined) {
      const patch = { method: 'PATCH' as const, path: `/definitions/${encodeURIComponent(id)}` };
      cases.push({ ep: patch, contentType: 'text/plain', text: JSON.stringify({ reason: 'conformance check', description: 'sent as text' }) });
      cases.push({ ep: patch, contentType: 'application/x-www-form-urlencoded', text: formEncoded({ reason: 'conformance check', description: 'sent as a form' }) });
    }
    let judged = 0;
    for (const c of cases) {
      const ex: Exchange = await sendRaw(ctx, owner, c.ep, c.text, c.contentType);
      archiveIfCreated(ctx, owner, ex);
      if (unavailable(ex)) continue;
      judged++;
      const status = ex.response?.status;
      const fail = (message: string, expected: string) =>
        ctx.softFail({ clause: 'ERR-006', message: `${c.ep.method} ${c.ep.path} with Content-Type ${c.contentType}: ${message}`, expected, received: ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind})`, exchange: ex });
      if (status !== 400 && status !== 415) {
        fail('the body was not refused with 400 or 415', '400 BAD_REQUEST, or 415 with defined false');
        continue;
      }
      if (!(await judgeEnvelope(ctx, ex, 'ERR-006'))) continue;
      const defined = isObject(ex.response?.json) ? ex.response.json.defined : undefined;
      if (status === 415 && defined !== false) fail(`a 415, which is not in the table of part 7, has defined ${JSON.stringify(defined)}`, 'defined false on a 415');
    }
    if (judged === 0) throw new NotObservable('every body was answered 503 (capability not configured)');
  },
};
