/**
 * The lenient variant's choices (src/reference/lenient.ts), one behaviour each: requests read
 * as lenient stacks read them, 422 for invalid requests, moduleKeys the Rails way, an
 * inclusive cursor, ICPs at another path, and the background work that shows late (receipts,
 * estimates, the ledger). The timed behaviours share one wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ref, UUID_RE, validCreate, type Res, type Ws } from './helpers.ts';

const plain = (id: string): string => id.replace(/-/g, '');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The 422 a lenient server answers an invalid request with (outside the table: defined false). */
function expectInvalid(r: Res): void {
  expect(r.status, r.text).toBe(422);
  expect(r.json).toMatchObject({ defined: false, code: 'VALIDATION_ERROR', status: 422 });
  expect(typeof r.json.message).toBe('string');
}

describe('the lenient variant', () => {
  let ref: Ref;
  let ws: Ws;

  beforeAll(async () => {
    ref = await Ref.start([], 'lenient');
    ws = await ref.workspace();
  });
  afterAll(() => ref.close());

  it('reads null in an optional field as not given, and a PATCH null as clearing description and instruction', async () => {
    const made = await ws.definition({ description: null, instruction: null, cardinality: null, captureEnabled: null, enumValues: [{ label: 'Gold', color: null }], decision_trace: null });
    expect(made).toMatchObject({ description: null, instruction: null, cardinality: null, capture_enabled: false });
    expect(made.enum_values[0]).toMatchObject({ label: 'Gold', color: null });
    const described = await ws.api('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', description: 'd', instruction: 'i' } });
    expect(described.json).toMatchObject({ description: 'd', instruction: 'i' });
    const cleared = await ws.api('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', description: null, instruction: null, chatVisible: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.json).toMatchObject({ description: null, instruction: null, chat_visible: true });
    // Null where the seed types a property "or null" is the value itself.
    const traced = await ws.definition({ decision_trace: { reason: 'why', factors: [{ criterion: 'c', status: 'supports', required: null }] } });
    expect(traced.id).toMatch(UUID_RE);
    // A required property is not optional: null is refused.
    for (const body of [
      { ...validCreate(), name: null },
      { ...validCreate(), reason: null },
      { ...validCreate(), decision_trace: { reason: null } },
    ])
      expectInvalid(await ws.api('POST', '/definitions', { body }));
  });

  it('stores "" as null for description and instruction, and shows unset enum value fields as null', async () => {
    const made = await ws.definition({ description: '', instruction: '', enumValues: [{ label: 'Gold' }, { label: 'Silver', description: 'two', color: '#aabbcc' }] });
    expect(made).toMatchObject({ description: null, instruction: null });
    expect(made.enum_values).toEqual([
      { label: 'Gold', slug: 'gold', description: null, color: null, archived: false },
      { label: 'Silver', slug: 'silver', description: 'two', color: '#aabbcc', archived: false },
    ]);
    const patched = await ws.api('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', description: 'x', instruction: '' } });
    expect(patched.json).toMatchObject({ description: 'x', instruction: null });
  });

  it('coerces unambiguous scalar strings, and refuses the rest', async () => {
    const made = await ws.definition({ autoApplyThreshold: '0.9', reviewThreshold: '0.25', captureEnabled: 'true', chatVisible: 'false' });
    expect(made).toMatchObject({ auto_apply_threshold: 0.9, review_threshold: 0.25, capture_enabled: true, chat_visible: false });
    for (const extra of [{ chatVisible: 1 }, { chatVisible: 'yes' }, { autoApplyThreshold: 'high' }, { autoApplyThreshold: true }, { autoApplyThreshold: '2' }, { name: 5 }]) {
      expectInvalid(await ws.api('POST', '/definitions', { body: { ...validCreate(), ...extra } }));
    }
  });

  it('takes a JSON body whatever its content type, ignores bytes after it, and refuses what is not JSON with 400', async () => {
    const body = JSON.stringify(validCreate());
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const r = await ws.api('POST', '/definitions', { raw: body, headers: type ? { 'content-type': type } : {} });
      // Created, answered 202 with the Definition (the variant's create status).
      expect(r.status, `${type}: ${r.text}`).toBe(202);
      expect(r.json.id, r.text).toEqual(expect.any(String));
    }
    const made = await ws.definition();
    for (const raw of ['{"reason":"x"}}', '{"reason":"x"} and more', '{"reason":"}"}\n{"reason":"y"}']) {
      const r = await ws.api('PATCH', `/definitions/${made.id}`, { raw, headers: { 'content-type': 'application/json' } });
      expect(r.status, `${raw}: ${r.text}`).toBe(200);
    }
    for (const raw of ['name=Tier&reason=x', '{"reason":', '"x"', '[]']) {
      const r = await ws.api('POST', '/definitions', { raw, headers: { 'content-type': 'text/plain' } });
      expect(r.status, `${raw}: ${r.text}`).toBe(400);
      expect(r.json).toMatchObject({ defined: true, code: 'BAD_REQUEST' });
    }
  });

  it('answers invalid requests 422: bounds, types, query parameters, Idempotency-Keys; state refusals keep their status', async () => {
    expectInvalid(await ws.api('POST', '/definitions', { body: { ...validCreate(), name: '' } }));
    expectInvalid(await ws.api('POST', '/definitions', { body: validCreate(), idem: 'has space' }));
    for (const q of ['limit=0', 'limit=201', 'cursor=nope', 'includeArchived=maybe', 'moduleKeys[]=bogus']) expectInvalid(await ws.api('GET', `/definitions?${q}`));
    expectInvalid(await ws.api('POST', '/operations', { body: { operation: 'graph.agent_preview', arguments: { customerIds: [] }, reason: 'x' } }));
    const made = await ws.definition();
    const unknownSlug = await ws.api('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', archiveEnumValueSlugs: ['nope'] } });
    expect(unknownSlug.status).toBe(400);
    expect((await ws.api('PATCH', '/definitions/not-a-uuid', { body: { reason: 'r' } })).status).toBe(400);
    expect((await ws.api('POST', '/operations', { body: { operation: 'graph.nothing', arguments: {}, reason: 'x' } })).status).toBe(400);
    await ws.api('POST', `/definitions/${made.id}/archive`, { body: { reason: 'gone' } });
    expect((await ws.api('PATCH', `/definitions/${made.id}`, { body: { reason: 'r' } })).status).toBe(409);
  });

  it('reads booleans in the query as yes/no, on/off, 1/0 or true/false, in any case', async () => {
    const other = await ref.workspace();
    const made = await other.definition();
    await other.api('POST', `/definitions/${made.id}/archive`, { body: { reason: 'gone' } });
    const count = async (v: string) => ((await other.api('GET', `/definitions?includeArchived=${v}`)).json.items as unknown[]).length;
    for (const v of ['yes', 'YES', 'on', '1', 'true', 'True']) expect(await count(v), v).toBe(1);
    for (const v of ['no', 'Off', '0', 'false', 'FALSE']) expect(await count(v), v).toBe(0);
  });

  it('accepts uuids without hyphens and in upper case wherever it parses one', async () => {
    const made = await ws.definition();
    const byPlain = await ws.api('PATCH', `/definitions/${plain(made.id).toUpperCase()}`, {
      body: {
        reason: 'plain id',
        decision_trace: { reason: 'why', evidence: [{ source_id: plain(made.id) }], factors: [{ criterion: 'c', status: 'supports', evidence_ids: [plain(made.id).toUpperCase()] }] },
      },
    });
    expect(byPlain.status, byPlain.text).toBe(200);
    expect(byPlain.json.id).toBe(made.id);
    expect((await ws.api('GET', `/definitions?cursor=${plain(made.id)}`)).status).toBe(200);
    const trace = await ws.api('GET', `/graph/traces?kind=definition&id=${plain(made.id)}`);
    expect(trace.status, trace.text).toBe(200);
    expect(trace.json.events[0].evidence).toEqual([{ source_id: made.id }]);
    const acct = await ws.account();
    expect((await ws.api('GET', `/data/accounts/${plain(acct)}`)).json.id).toBe(acct);
    const submitted = await ws.api('POST', '/operations', { body: { operation: 'graph.agent_preview', arguments: { customerIds: [plain(acct)] }, reason: 'x' } });
    expect(submitted.status, submitted.text).toBe(202);
    expect((await ws.api('GET', `/operations/${plain(submitted.json.id)}`)).json.id).toBe(submitted.json.id);
    // Still not a uuid: too short, or not hexadecimal.
    expect((await ws.api('GET', `/definitions?cursor=${plain(made.id).slice(1)}`)).status).toBe(422);
    expect((await ws.api('GET', `/definitions?cursor=g${plain(made.id).slice(1)}`)).status).toBe(422);
  });

  it('reads moduleKeys the Rails way: bracket forms in full, a repeated plain name last-wins', async () => {
    const other = await ref.workspace();
    await other.definition({ moduleKey: 'customers' });
    await other.definition({ moduleKey: 'partners' });
    await other.definition({ moduleKey: 'vendors' });
    const modules = async (q: string) => ((await other.api('GET', `/definitions?${q}`)).json.items as { module_key: string }[]).map((d) => d.module_key).sort();
    expect(await modules('moduleKeys[]=customers&moduleKeys[]=vendors')).toEqual(['customers', 'vendors']);
    expect(await modules('moduleKeys[0]=partners&moduleKeys[1]=vendors')).toEqual(['partners', 'vendors']);
    expect(await modules('moduleKeys=customers&moduleKeys=vendors')).toEqual(['vendors']);
    expect(await modules('moduleKeys=partners')).toEqual(['partners']);
  });

  it('pages with an inclusive cursor: nextCursor is the first id of the next page, and a walk lists everything once', async () => {
    const other = await ref.workspace();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await other.definition()).id);
    ids.sort();
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const r = await other.api('GET', `/definitions?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const page = (r.json.items as { id: string }[]).map((d) => d.id);
      seen.push(...page);
      cursor = r.json.nextCursor;
      if (cursor === null) break;
      expect(cursor).toBe(ids[seen.length]);
    }
    expect(seen).toEqual(ids);
  });

  it('serves ICPs at /data/profiles and matches routes before it checks the key', async () => {
    expect((await ws.api('GET', '/data/profiles')).json).toEqual({ items: [], nextCursor: null });
    expect((await ws.api('GET', '/data/icps')).status).toBe(404);
    expect((await ref.api(null, 'GET', '/data/icps')).status).toBe(404);
    expect((await ref.api(null, 'GET', '/data/profiles')).status).toBe(401);
  });

  it('completes receipts 4 s after submission, quote fields null until then; fills estimates in after 1 s; records charges 2.5 s late', async () => {
    const other = await ref.workspace();
    const acct = await other.account();
    const made = await other.definition();
    expect(made).toMatchObject({ est_credits_low: null, est_credits_high: null, last_run_credits: null, state: 'draft' });
    const submitted = await other.api('POST', '/operations', { body: { operation: 'graph.agent_preview', arguments: { customerIds: [acct] }, reason: 'quote' } });
    expect(submitted.json).toMatchObject({ status: 'queued', modelCreditCeiling: null, apiPreviewCredits: null, apiSubmissionCredits: null, analysisLabel: null, model: null });
    for (let i = 0; i < 5; i++) expect((await other.api('GET', `/operations/${submitted.json.id}`)).json.status).toBe('queued');
    expect(await other.charged()).toBe(0);
    await sleep(1_100);
    const [estimated] = (await other.api('GET', '/definitions')).json.items;
    expect(estimated).toMatchObject({ id: made.id, state: 'draft', est_credits_low: 2, est_credits_high: 12, last_run_credits: 0, reason: made.reason });
    expect(Date.parse(estimated.updated_at)).toBeGreaterThan(Date.parse(made.updated_at));
    await sleep(1_600);
    expect(await other.charged()).toBe(2);
    await sleep(1_400);
    const done = (await other.api('GET', `/operations/${submitted.json.id}`)).json;
    expect(done).toMatchObject({ status: 'succeeded', modelCreditCeiling: 2, apiPreviewCredits: 1, apiSubmissionCredits: 1, analysisLabel: 'Account research' });
    expect(done.result).toMatchObject({ modelCreditCeiling: 2 });
  }, 60_000);
});
