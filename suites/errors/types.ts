/**
 * A body field of the wrong JSON type is refused (seed part 7: 400, or 422 with defined false;
 * the field types of 4.4 and 4.5). Only types no common parser reads as the field's type are
 * sent: objects and arrays for scalars, a scalar for an array, a string that reads as no number
 * or boolean. Look-alikes a lenient parser coerces ("0.9" or true for a number, "true" or 1 for
 * a boolean, 123 for a string: pydantic's lax mode, Jackson's scalar coercion) are left out, as
 * the contract's generators leave them out: a conformant server built on such a parser may
 * accept them. The property draws one wrong-typed field at a time from those generators (every
 * `type` violation of the create body).
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { checkPropertyTrial } from '../../src/engine/property.ts';
import { inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { bodyArbitraries } from '../../src/generators/index.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { minimalCreateBody, uniqueName } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { archiveIfCreated } from '../_shared/ops-fixtures.ts';
import { scratchDefinition, sendRaw, unavailable } from './bodies.ts';
import { ENVELOPE_CLAUSES, INVALID_EXPECTED, judgeInvalidRefusal } from './envelope.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

/** One wrong-typed request: a JSON value sent as the whole body, and what is wrong with it. */
interface Case {
  scenario: string;
  body: unknown;
}

function createCases(ctx: CheckContext): Case[] {
  const valid = minimalCreateBody(ctx);
  const field = (name: string, value: unknown): Case => ({ scenario: `${name} is ${JSON.stringify(value)}`, body: { ...minimalCreateBody(ctx), [name]: value } });
  return [
    field('name', { text: 'conformance' }),
    field('entityKinds', 'account'),
    field('autoApplyThreshold', 'high'),
    field('reviewThreshold', { value: 0.5 }),
    field('captureEnabled', 'not-a-boolean'),
    field('chatVisible', [true]),
    field('enumValues', { label: 'Alpha' }),
    field('reason', ['conformance check']),
    { scenario: 'the body is an array', body: [valid] },
    { scenario: 'the body is a string', body: 'conformance check' },
    { scenario: 'the body is a number', body: 42 },
  ];
}

function patchCases(): Case[] {
  const field = (name: string, value: unknown): Case => ({ scenario: `${name} is ${JSON.stringify(value)}`, body: { reason: 'conformance check', [name]: value } });
  return [
    field('autoApplyThreshold', [0.9]),
    field('name', ['conformance']),
    field('chatVisible', 'not-a-boolean'),
    field('reason', { text: 'conformance check' }),
    { scenario: 'the body is an array', body: [{ reason: 'conformance check' }] },
  ];
}

/**
 * Judges one answer: a refusal as invalid (400, or 422 with defined false) with the envelope
 * passes; 503 is skipped (returns false); anything else is a finding (soft, or thrown for the
 * property, which judges the status only).
 */
async function judge(ctx: CheckContext, owner: KeyHandle, ex: Exchange, scenario: string, soft: boolean): Promise<boolean> {
  archiveIfCreated(ctx, owner, ex);
  if (unavailable(ex)) return false;
  if (!soft) ctx.judged('ERR-005');
  if (soft ? await judgeInvalidRefusal(ctx, ex, 'ERR-005') : INVALID_STATUSES.includes(ex.response?.status ?? 0)) return true;
  const f = new Finding({
    clause: 'ERR-005',
    message: `${ex.request.method} with a wrong JSON type (${scenario}) was not refused as invalid`,
    expected: INVALID_EXPECTED,
    received: ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind}: ${ex.error?.message})`,
    exchange: ex,
  });
  if (!soft) throw f;
  ctx.softFail(f.evidence);
  return true;
}

export const wrongTypes: CheckDef = {
  id: 'errors/wrong-types',
  title: 'Body fields of a JSON type no parser reads as theirs (and bodies that are not objects) are refused with 400 (or 422)',
  clauses: ['ERR-005', ...ENVELOPE_CLAUSES],
  needs: { mutation: true },
  // The scratch definition for PATCH and its clean-up archive.
  credits: 2,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-005');
    const owner = ctx.key('owner');
    const create = { method: 'POST' as const, path: '/definitions' };
    let judged = 0;
    // The cases of each endpoint together (a refusal changes nothing), judged in order.
    const creates = createCases(ctx);
    const created = await inParallel(creates, WIDE_PARALLEL, (c) => sendRaw(ctx, owner, create, JSON.stringify(c.body)));
    for (const [i, c] of creates.entries()) if (await judge(ctx, owner, created[i]!, c.scenario, true)) judged++;
    if (judged === 0) throw new NotObservable('POST /definitions answered 503 (capability not configured) to every body');
    // PATCH needs a definition; without one only the create bodies are judged.
    const id = await scratchDefinition(ctx, owner);
    const patch = id === undefined ? undefined : { method: 'PATCH' as const, path: `/definitions/${encodeURIComponent(id)}` };
    if (patch) {
      const patches = patchCases();
      const patched = await inParallel(patches, WIDE_PARALLEL, (c) => sendRaw(ctx, owner, patch, JSON.stringify(c.body)));
      for (const [i, c] of patches.entries()) await judge(ctx, owner, patched[i]!, c.scenario, true);
    }

    const spec = await loadSpec();
    const typeViolations = bodyArbitraries(spec, 'createDefinition').violations.filter((v) => v.keyword === 'type');
    // Every generated body gets a prefixed name (unless the name is the wrong-typed field), so a
    // body the target wrongly accepts is recognisable and archived.
    const arbitrary = fc.oneof(
      ...typeViolations.map((v) => v.value.map((body) => ({ body: isObject(body) && v.path !== '/name' ? { ...body, name: uniqueName(ctx, 'types') } : body, scenario: v.scenario, path: v.path }))),
    );
    // The cases side by side; one at a time, as the property, where any is not refused.
    const trial = await checkPropertyTrial(
      ctx,
      {
        clause: 'ERR-005',
        arbitrary,
        predicate: async ({ body, scenario }) => void (await judge(ctx, owner, await sendRaw(ctx, owner, create, JSON.stringify(body)), scenario, false)),
      },
      {
        n: WIDE_PARALLEL,
        run: async ({ body }) => {
          const ex = await sendRaw(ctx, owner, create, JSON.stringify(body));
          // A body wrongly accepted is archived again, whatever the property then finds.
          archiveIfCreated(ctx, owner, ex);
          return unavailable(ex) ? 'unavailable' : INVALID_STATUSES.includes(ex.response?.status ?? 0) && 'refused';
        },
      },
    );
    for (const r of trial ?? []) if (r === 'refused') ctx.judged('ERR-005');
  },
};
