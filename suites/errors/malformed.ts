/**
 * A body that is not valid JSON is refused (seed part 4, "bodies are JSON"; part 7: 400, or 422
 * with defined false, since rule 4 leaves open which condition yields which status) on every
 * endpoint whose request body the seed shows. Fixed malformations cover the usual mistakes;
 * the property cuts valid bodies (from the contract's generators) short: a proper prefix of a
 * JSON object's text is never valid JSON, whatever the shape of the body.
 *
 * Left out: endpoints whose request shape is not shown (4.9), which may take no body and never
 * read one; and a complete JSON value followed by more bytes, which decoders that read one
 * value from a stream (Go's json.Decoder) accept without looking further.
 */
import fc from 'fast-check';
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { checkPropertyTrial } from '../../src/engine/property.ts';
import { inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { bodyArbitraries } from '../../src/generators/index.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { jsonBodyEndpoints, scratchDefinition, sendRaw, unavailable, type BodyEndpoint } from './bodies.ts';
import { ENVELOPE_CLAUSES, INVALID_EXPECTED, judgeInvalidRefusal } from './envelope.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

/**
 * Texts that are not JSON (RFC 8259), named by what is wrong with them. Python's json module
 * reads NaN, but none of these bodies holds a shown endpoint's required fields either, so a
 * server built on it refuses that body all the same.
 */
const MALFORMED: readonly { scenario: string; text: string }[] = [
  { scenario: 'trailing comma', text: '{"name": "x",}' },
  { scenario: 'single-quoted strings', text: "{'name': 'x'}" },
  { scenario: 'truncated object', text: '{"name": ' },
  { scenario: 'not JSON at all', text: 'name=x' },
  { scenario: 'NaN literal', text: '{"autoApplyThreshold": NaN}' },
];

const notRefused = (ep: BodyEndpoint, scenario: string, ex: Exchange): Finding =>
  new Finding({
    clause: 'ERR-004',
    message: `${ep.method} ${ep.path} with a malformed JSON body (${scenario}) was not refused as invalid`,
    expected: INVALID_EXPECTED,
    received: ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind}: ${ex.error?.message})`,
    exchange: ex,
  });

export const malformedJson: CheckDef = {
  id: 'errors/malformed-json',
  title: 'Malformed JSON bodies are refused with 400 (or 422) on every endpoint whose request body the seed shows',
  clauses: ['ERR-004', ...ENVELOPE_CLAUSES],
  needs: { mutation: true },
  // The scratch definition and its clean-up archive.
  credits: 2,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-004');
    const owner = ctx.key('owner');
    const endpoints = (await jsonBodyEndpoints(await scratchDefinition(ctx, owner))).filter((ep) => ep.shown);
    let judged = 0;
    // Every malformed body of every endpoint together (a refusal changes nothing), judged in
    // order; an endpoint's bodies after its first 503 are not judged.
    const cases = endpoints.flatMap((ep) => MALFORMED.map((m) => ({ ep, m })));
    const sent = await inParallel(cases, WIDE_PARALLEL, ({ ep, m }) => sendRaw(ctx, owner, ep, m.text));
    const off = new Set<BodyEndpoint>();
    for (const [i, { ep, m }] of cases.entries()) {
      const ex = sent[i]!;
      if (off.has(ep) || unavailable(ex)) {
        off.add(ep);
        continue;
      }
      judged++;
      if (!(await judgeInvalidRefusal(ctx, ex, 'ERR-004'))) ctx.softFail(notRefused(ep, m.scenario, ex).evidence);
    }
    if (judged === 0) throw new NotObservable('every endpoint that takes a body answered 503 (capability not configured)');

    // Truncated valid bodies, over every endpoint (the run's seed and number of runs apply).
    const spec = await loadSpec();
    const cut = fc.constantFrom(...endpoints).chain((ep) =>
      // Only objects and arrays: every proper prefix of their JSON text is invalid JSON.
      bodyArbitraries(spec, ep.operationId)
        .valid.filter((b) => typeof b === 'object' && b !== null)
        .chain((body) => {
          const text = JSON.stringify(body);
          return fc.integer({ min: 1, max: text.length - 1 }).map((n) => ({ ep, text: text.slice(0, n), scenario: `a valid body cut after ${n} of ${text.length} characters`, path: '' }));
        }),
    );
    // The cases side by side; one at a time, as the property, where any is not refused.
    const trial = await checkPropertyTrial(
      ctx,
      {
        clause: 'ERR-004',
        arbitrary: cut,
        predicate: async ({ ep, text, scenario }) => {
          const ex = await sendRaw(ctx, owner, ep, text);
          if (unavailable(ex)) return;
          ctx.judged('ERR-004');
          if (!INVALID_STATUSES.includes(ex.response?.status ?? 0)) throw notRefused(ep, scenario, ex);
        },
      },
      {
        n: WIDE_PARALLEL,
        run: async ({ ep, text }) => {
          const ex = await sendRaw(ctx, owner, ep, text);
          return unavailable(ex) ? 'unavailable' : INVALID_STATUSES.includes(ex.response?.status ?? 0) && 'refused';
        },
      },
    );
    for (const r of trial ?? []) if (r === 'refused') ctx.judged('ERR-004');
  },
};
