/**
 * Bodies and content types (seed part 4, "bodies are JSON"). A body that is not JSON, sent with
 * a content type other than JSON, is refused: 400, 422 or 415 (the last two outside the table
 * of part 7, so with defined false). The seed does not say that a server reads Content-Type:
 * a server that decodes every body as JSON (Go's json.NewDecoder) processes a JSON body sent as
 * text/plain, and one that also reads forms processes a form whose fields are all valid. Such a
 * body may be refused in the same way or processed; processed, it must be judged as the JSON
 * request it encodes would be (the create shows the name it was sent, the PATCH the
 * description). The form-encoded create carries entityKinds, an array, as JSON text: read as a
 * form it is a string, read as JSON it is no JSON at all, so every reading refuses it.
 */
import type { CheckContext, CheckDef } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { brief, isObject } from '../_shared/json.ts';
import { archiveIfCreated } from '../_shared/ops-fixtures.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { scratchDefinition, sendRaw, unavailable, type BodyEndpoint } from './bodies.ts';
import { ENVELOPE_CLAUSES, INVALID_EXPECTED, judgeInvalidRefusal } from './envelope.ts';

/** The body as an HTML form would send it (nested values as JSON text). */
function formEncoded(body: Record<string, unknown>): string {
  return new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();
}

interface Case {
  ep: Pick<BodyEndpoint, 'method' | 'path'>;
  contentType: string;
  text: string;
  /**
   * Set when a reading of the seed lets the server process the body (it is JSON, or a form of
   * valid fields): the field of the answer that must then show `value`, as for the JSON request.
   */
  processed?: { field: string; value: string };
}

/** The statuses outside the table that refuse a body for its type: 415 Unsupported Media Type. */
const MEDIA_TYPE = [415];

/** The cases: JSON bodies under text/plain, a form that no reading accepts, text that is no JSON; then, with a definition, the PATCH cases. */
function cases(ctx: CheckContext, definitionId: string | undefined): Case[] {
  const create = { method: 'POST' as const, path: '/definitions' };
  const asText = (contentType: string): Case => {
    const body = minimalCreateBody(ctx);
    return { ep: create, contentType, text: JSON.stringify(body), processed: { field: 'name', value: String(body.name) } };
  };
  const out: Case[] = [
    asText('text/plain'),
    asText('text/plain; charset=utf-8'),
    { ep: create, contentType: 'application/x-www-form-urlencoded', text: formEncoded(minimalCreateBody(ctx)) },
    { ep: create, contentType: 'text/plain', text: `name: ${String(minimalCreateBody(ctx).name)}\nreason: conformance check` },
  ];
  if (definitionId === undefined) return out;
  const patch = { method: 'PATCH' as const, path: `/definitions/${encodeURIComponent(definitionId)}` };
  out.push(
    { ep: patch, contentType: 'text/plain', text: JSON.stringify({ reason: 'conformance check', description: 'sent as text' }), processed: { field: 'description', value: 'sent as text' } },
    {
      ep: patch,
      contentType: 'application/x-www-form-urlencoded',
      text: formEncoded({ reason: 'conformance check', description: 'sent as a form' }),
      processed: { field: 'description', value: 'sent as a form' },
    },
    { ep: patch, contentType: 'text/plain', text: 'reason=conformance check; description=sent as prose' },
  );
  return out;
}

export const nonJsonContentType: CheckDef = {
  id: 'errors/non-json-content-type',
  title: 'Bodies that are not JSON, sent as text/plain or form-urlencoded, are refused (400, or 415/422 with defined false); JSON under another type is refused or processed as JSON',
  clauses: ['ERR-006', ...ENVELOPE_CLAUSES],
  needs: { mutation: true },
  // The scratch definition for PATCH and its clean-up archive (the reference refuses every case).
  credits: 2,
  // A target that processes JSON under text/plain, and valid forms: the two creates and their
  // clean-up archives, the two PATCHes.
  maxCredits: 2 + 2 * 2 + 2,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-006');
    const owner = ctx.key('owner');
    let judged = 0;
    for (const c of cases(ctx, await scratchDefinition(ctx, owner))) {
      const ex: Exchange = await sendRaw(ctx, owner, c.ep, c.text, c.contentType);
      archiveIfCreated(ctx, owner, ex);
      if (unavailable(ex)) continue;
      judged++;
      await judge(ctx, c, ex);
    }
    if (judged === 0) throw new NotObservable('every body was answered 503 (capability not configured)');
  },
};

/** A refusal passes (its envelope judged); a 2xx passes only for a case a reading lets through, when it did what the JSON request does. */
async function judge(ctx: CheckContext, c: Case, ex: Exchange): Promise<void> {
  const what = `${c.ep.method} ${c.ep.path} with Content-Type ${c.contentType}`;
  const received = ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind})`;
  if (await judgeInvalidRefusal(ctx, ex, 'ERR-006', { also: MEDIA_TYPE, presence: 'ERR-006' })) return;
  const refusals = `${INVALID_EXPECTED}, or 415 with defined false`;
  if (!c.processed) {
    ctx.softFail({ clause: 'ERR-006', message: `${what}: a body that is not JSON was not refused`, expected: refusals, received, exchange: ex });
    return;
  }
  if (!is2xx(ex)) {
    ctx.softFail({ clause: 'ERR-006', message: `${what}: the body was neither refused nor processed`, expected: `${refusals}; or 2xx, processed as the JSON request`, received, exchange: ex });
    return;
  }
  const body = ex.response?.json;
  const shown = isObject(body) ? body[c.processed.field] : undefined;
  ctx.judged('ERR-006');
  if (shown !== c.processed.value) {
    ctx.softFail({
      clause: 'ERR-006',
      message: `${what}: the body was accepted but not processed as the JSON request it encodes (${c.processed.field} ${JSON.stringify(shown)})`,
      expected: `a refusal, or a Definition with ${c.processed.field} ${JSON.stringify(c.processed.value)}`,
      received: brief(body ?? ex.response?.text),
      exchange: ex,
    });
  }
}
