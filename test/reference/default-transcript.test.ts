/**
 * The default variant answers byte for byte as it always has: a fixed sequence of requests over
 * every route, refusal and edge case where a variant may differ (statuses, body reading, query
 * parsing, uuids, paging, receipts, layouts, the ledger), rendered with headers and bodies and
 * compared with a recorded transcript (__snapshots__/default-transcript.txt). Only what is
 * random by design is normalised: uuids (numbered by first appearance), key secrets,
 * timestamps and content hashes. Adding a variant's choice must leave this file unchanged;
 * `vitest -u` re-records it when the default is changed on purpose.
 */
import { describe, expect, it } from 'vitest';
import { Ref, type Res } from './helpers.ts';

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME_RE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;
const SECRET_RE = /wgr_[0-9A-Za-z]{32}/g;
const PLAIN_UUID_RE = /\b[0-9a-f]{32}\b/gi;
const HASH_RE = /\b[0-9a-f]{64}\b/g;
/** Headers that vary by connection or clock, not by the server's choices. */
const SKIPPED_HEADERS = new Set(['date', 'connection', 'keep-alive']);

/** Numbers uuids by first appearance, so a transcript is the same run after run. */
class Normaliser {
  private readonly ids = new Map<string, string>();

  private label(u: string): string {
    const k = u.toLowerCase();
    if (!this.ids.has(k)) this.ids.set(k, `<id${this.ids.size + 1}>`);
    return this.ids.get(k)!;
  }

  text(s: string): string {
    const hyphenate = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    return s
      .replace(UUID_RE, (u) => `${this.label(u)}${u === u.toLowerCase() ? '' : ':upper'}`)
      .replace(PLAIN_UUID_RE, (h) => `${this.label(hyphenate(h))}:plain`)
      .replace(TIME_RE, '<time>')
      .replace(SECRET_RE, '<secret>')
      .replace(HASH_RE, '<hash>');
  }

  /** A list's items come ordered by random id: rendered sorted, so the transcript does not depend on the draw. */
  body(text: string): string {
    const normal = this.text(text);
    let json: unknown;
    try {
      json = JSON.parse(normal);
    } catch {
      return normal;
    }
    const sortItems = (v: unknown): unknown => {
      if (v && typeof v === 'object' && !Array.isArray(v) && Array.isArray((v as { items?: unknown }).items)) {
        const o = v as { items: unknown[] };
        return { ...o, items: [...o.items].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) };
      }
      return v;
    };
    return JSON.stringify(sortItems(json));
  }
}

describe('the default variant', () => {
  it('answers a fixed sequence of requests exactly as recorded', async () => {
    const ref = await Ref.start();
    const n = new Normaliser();
    const lines: string[] = [];
    const log = (what: string, r: Res) => {
      const headers = [...r.headers.entries()].filter(([k]) => !SKIPPED_HEADERS.has(k)).map(([k, v]) => `${k}: ${v}`);
      lines.push(`${n.text(what)}\n  → ${r.status} ${n.text(headers.join(' | '))}\n  ${n.body(r.text)}`);
    };
    try {
      const ws = await ref.workspace();
      const other = await ref.workspace();
      lines.push(n.text(`workspace ${ws.id} owner ${ws.owner.userId} ${ws.owner.secret}; other ${other.id}`));
      const reader = await ws.key('analyst', ['graph:read']);
      const acct = await ws.account('Acme', 'acme.test');
      const person = await ws.person(acct, 'Jane', 'CTO');
      lines.push(n.text(`reader ${reader.userId}; account ${acct}; person ${person.personId} ${person.accountPersonId}`));
      const call = async (method: string, path: string, o: Parameters<Ref['api']>[3] = {}, secret: string | null = ws.owner.secret, note = '') => {
        const r = await ref.api(secret, method, path, o);
        log(`${method} ${path}${note ? ` [${note}]` : ''}${o.body !== undefined ? ` ${JSON.stringify(o.body)}` : ''}${o.raw !== undefined ? ` raw ${JSON.stringify(String(o.raw))}` : ''}`, r);
        return r;
      };
      const json = { 'content-type': 'application/json' };

      // Introspection, authentication, routing.
      await call('GET', '/me');
      await call('GET', '/capabilities', {}, reader.secret);
      await call('GET', '/me', {}, null, 'no key');
      await call('GET', '/nowhere', {}, null, 'unknown path, no key');
      await call('GET', '/nowhere');
      await call('DELETE', '/definitions', {}, ws.owner.secret, 'known path, other method');
      await call('GET', '/data/icps', {}, null, 'no key');
      await call('GET', '/data/profiles');

      // Creates: valid, every optional field, and the refusals where readers differ.
      const base = {
        name: 'Tier',
        moduleKey: 'customers',
        entityKinds: ['account'],
        valueType: 'enum',
        enumValues: [{ label: 'Gold' }, { label: 'Silver', description: 'second', color: '#aabbcc' }],
        reason: 'test',
      };
      const made = (await call('POST', '/definitions', { body: base, idem: 'create-1' })).json;
      await call('POST', '/definitions', { body: base, idem: 'create-1' }, ws.owner.secret, 'replay');
      await call('POST', '/definitions', { body: { ...base, name: 'Other' }, idem: 'create-1' }, ws.owner.secret, 'same key, other body');
      await call('POST', '/definitions', { body: base, idem: 'has space' });
      await call('POST', '/definitions', { body: base, headers: { 'idempotency-key': '' } }, ws.owner.secret, 'empty key');
      const full = {
        ...base,
        name: 'Full',
        moduleKey: 'partners',
        description: '',
        instruction: 'Use it',
        cardinality: 'multi',
        refreshPolicy: 'on_ingest_and_backfill',
        captureEnabled: true,
        autoApplyThreshold: 0.7,
        reviewThreshold: 0.3,
        chatVisible: false,
      };
      const second = (await call('POST', '/definitions', { body: full })).json;
      await call('POST', '/definitions', { body: { ...base, name: 'Plain', valueType: 'text', enumValues: undefined } });
      await call('POST', '/definitions', { body: { ...base, description: null } });
      await call('POST', '/definitions', { body: { ...base, instruction: null, decision_trace: null } });
      await call('POST', '/definitions', { body: { ...base, name: null } });
      await call('POST', '/definitions', { body: { ...base, autoApplyThreshold: '0.9' } });
      await call('POST', '/definitions', { body: { ...base, captureEnabled: 'true' } });
      await call('POST', '/definitions', { body: { ...base, chatVisible: 1 } });
      await call('POST', '/definitions', { body: { ...base, reviewThreshold: 2, name: '' } });
      await call('POST', '/definitions', { body: { ...base, enumValues: [{ label: 'Gold', description: null }] } });
      const trace = {
        reason: 'why',
        evidence: [{ source_id: '5A6B7C8D-0000-4000-8000-000000000001' }],
        factors: [{ criterion: 'c', status: 'supports', required: null, evidence_ids: ['5a6b7c8d-0000-4000-8000-000000000001'] }],
      };
      await call('POST', '/definitions', { body: { ...base, name: 'Traced', decision_trace: trace } });
      await call('POST', '/definitions', { body: { ...base, decision_trace: { ...trace, evidence: [{ source_id: '5a6b7c8d000040008000000000000001' }] } } });
      await call('POST', '/definitions', { body: { ...base, decision_trace: { ...trace, event_at: '2020-01-02T03:04:05' } } });
      await call('POST', '/definitions', { body: { ...base, unknownField: 1 } });

      // Body reading: content types, syntax, trailing bytes, shapes.
      await call('POST', '/definitions', { raw: JSON.stringify(base), headers: { 'content-type': 'text/plain' } });
      await call('POST', '/definitions', { raw: JSON.stringify(base), headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' } });
      await call('POST', '/definitions', { raw: JSON.stringify(base) }, ws.owner.secret, 'no content type');
      await call('POST', '/definitions', { raw: 'name=Tier&reason=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      await call('POST', '/definitions', { raw: 'name=Tier&reason=x', headers: { 'content-type': 'text/plain' } });
      await call('PATCH', `/definitions/${made.id}`, { raw: '{"reason":"x"}}', headers: json });
      await call('PATCH', `/definitions/${made.id}`, { raw: '{"reason":"x"} trailing', headers: json });
      await call('PATCH', `/definitions/${made.id}`, { raw: '{"reason":', headers: json });
      await call('PATCH', `/definitions/${made.id}`, { raw: '[]', headers: json });
      await call('PATCH', `/definitions/${made.id}`, { raw: '', headers: json });
      await call('PATCH', `/definitions/${made.id}`, { raw: Buffer.from([0x7b, 0xff, 0x7d]), headers: json });

      // Updates.
      await call('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', description: 'described', instruction: 'do' } });
      await call('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', description: null } });
      await call('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', instruction: null, name: null } });
      await call('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', description: '', instruction: '' } });
      await call('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', autoApplyThreshold: '0.5', chatVisible: 'false' } });
      await call('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', addEnumValues: [{ label: 'Bronze' }], archiveEnumValueSlugs: ['silver'] } });
      await call('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', archiveEnumValueSlugs: ['nope'] } });
      await call('PATCH', `/definitions/${made.id.toUpperCase()}`, { body: { reason: 'upper', name: 'Tier renamed' } });
      await call('PATCH', `/definitions/${made.id.replace(/-/g, '')}`, { body: { reason: 'r' } });
      await call('PATCH', '/definitions/not-a-uuid', { body: { reason: 'r' } });
      await call('PATCH', '/definitions/5a6b7c8d-0000-4000-8000-00000000abcd', { body: { reason: 'r' } });
      await call('PATCH', `/definitions/${made.id}`, { body: { reason: 'r' } }, other.owner.secret, 'another workspace');
      await call('POST', `/definitions/${made.id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'bronze', reason: 'm' } });
      await call('POST', `/definitions/${made.id}/merge-value`, { body: { fromSlug: 'bronze', intoSlug: 'bronze', reason: 'm' } });
      await call('POST', `/definitions/${made.id}/merge-value`, { body: { fromSlug: 'zzz', intoSlug: 'bronze', reason: 'm' } });
      await call('POST', `/definitions/${second.id}/archive`, { body: { reason: 'gone' } });
      await call('POST', `/definitions/${second.id}/archive`, { body: { reason: 'again' } });
      await call('PATCH', `/definitions/${second.id}`, { body: { reason: 'r' } });

      // Listing and its parameters.
      await call('GET', '/definitions');
      for (const q of ['includeArchived=true', 'includeArchived=TRUE', 'includeArchived=yes', 'includeArchived=1', 'includeArchived=off', 'includeArchived=true&includeArchived=true'])
        await call('GET', `/definitions?${q}`);
      for (const q of [
        'moduleKeys=customers&moduleKeys=partners&includeArchived=true',
        'moduleKeys=partners&moduleKeys=customers',
        'moduleKeys[]=partners&moduleKeys[]=customers&includeArchived=true',
        'moduleKeys[0]=partners&includeArchived=true',
        'moduleKeys=bogus',
        'moduleKeys=partners&moduleKeys[]=customers',
      ])
        await call('GET', `/definitions?${q}`);
      for (const q of [
        'limit=0',
        'limit=201',
        'limit=abc',
        'limit=200',
        'cursor=not-a-uuid',
        'cursor=5a6b7c8d000040008000000000000001',
        'cursor=FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
        'unknown=1',
        'limit=%zz',
      ])
        await call('GET', `/definitions?${q}`);

      // A page of one in a workspace of one definition (elsewhere the order depends on the random ids).
      await call('POST', '/definitions', { body: base }, other.owner.secret, 'other workspace');
      await call('GET', '/definitions?cursor=00000000-0000-4000-8000-000000000000&limit=1', {}, other.owner.secret, 'other workspace');

      // Operations, receipts, the agent preview quote.
      const preview = await call('POST', '/operations', { body: { operation: 'graph.agent_preview', arguments: { customerIds: [acct], personFields: ['title'] }, reason: 'quote' }, idem: 'op-1' });
      await call('GET', `/operations/${preview.json.id}`);
      await call('GET', `/operations/${String(preview.json.id).replace(/-/g, '')}`);
      await call('GET', `/operations/${String(preview.json.id).toUpperCase()}`);
      await call('GET', '/operations/5a6b7c8d-0000-4000-8000-00000000abcd');
      const apply = await call('POST', '/operations', {
        body: {
          operation: 'graph.apply_update',
          arguments: { customer_id: acct, summary: 's', changes: [{ kind: 'person_field', target_label: 'Jane', person_id: person.accountPersonId, field: 'title', after: 'CEO' }] },
          reason: 'edit',
        },
      });
      await call('GET', `/operations/${apply.json.id}`);
      await call('POST', '/operations', { body: { operation: 'graph.nothing', arguments: {}, reason: 'x' } });
      await call('POST', '/operations', { body: { operation: 'graph.agent_preview', arguments: { customerIds: [acct.replace(/-/g, '')] }, reason: 'x' } });
      await call('POST', '/operations', { body: { operation: 'graph.agent_preview', arguments: { customerIds: [] }, reason: 'x' } });
      await call('GET', '/operations');

      // The other endpoints of 4.9.
      await call('POST', '/query', { body: { operation: 'crm.read_partner_company_properties', arguments: { properties: ['name'], limit: '5' } } });
      await call('POST', '/query', { body: { operation: 'crm.read_partner_company_properties', arguments: { properties: ['name'] } } });
      await call('POST', '/compute/preview', { body: { job: 'pmm_refresh' } });
      const run = await call('POST', '/compute/runs', { body: { job: 'pmm_refresh', reason: 'go', accountIds: [acct] } });
      await call('GET', `/compute/runs/${run.json.id}`);
      await call('GET', `/data/accounts/${acct}`);
      await call('GET', `/data/accounts/${acct.replace(/-/g, '')}`);
      await call('GET', `/data/accounts/${acct}/contacts?limit=1`);
      await call('GET', `/data/people/${person.personId}`);
      await call('GET', `/data/people/${person.accountPersonId}`);
      for (const c of ['icps', 'matches', 'lookalikes', 'relationships']) await call('GET', `/data/${c}`);
      await call('POST', '/graph/decision-inputs', { body: { definitionIds: [made.id] } });
      await call('POST', '/graph/decision-inputs', { body: { definitionIds: [made.id.replace(/-/g, '')] } });
      await call('GET', `/graph/traces?kind=definition&id=${made.id}`);
      await call('GET', `/graph/traces?kind=definition&id=${made.id.toUpperCase()}&limit=1`);
      await call('GET', `/graph/traces?kind=definition&id=${made.id.replace(/-/g, '')}`);
      await call('GET', `/graph/traces?kind=account&id=${acct}&before_revision=x`);
      await call('GET', `/graph/traces?kind=nope&id=${acct}`);

      // What was charged, as the control protocol shows it.
      log('control: usage', await ref.control('GET', `/workspaces/${ws.id}/usage`));
    } finally {
      await ref.close();
    }
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__snapshots__/default-transcript.txt');
  });
});
