/** Collection paging of the reference target (seed 2.3, 4.3, part 8 limits). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, Ref, UUID_RE, validCreate, type Ws } from './helpers.ts';

let ref: Ref;
let ws: Ws;
const modules = ['customers', 'partners', 'investors'];
beforeAll(async () => {
  ref = await Ref.start();
  ws = await ref.workspace();
  // 130 definitions across three modules; every tenth archived.
  await Promise.all(
    Array.from({ length: 130 }, async (_, i) => {
      const d = await ws.definition({ name: `d${i}`, moduleKey: modules[i % 3] });
      if (i % 10 === 0) await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' } });
    }),
  );
});
afterAll(() => ref.close());

async function all(query: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 500; i++) {
    const r = await ws.api('GET', `/definitions?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status).toBe(200);
    out.push(...r.json.items);
    cursor = r.json.nextCursor;
    if (cursor === null) return out;
    expect(cursor).toMatch(UUID_RE);
    expect(cursor).toBe(r.json.items.at(-1).id);
  }
  throw new Error('paging did not end');
}

describe('paging', () => {
  it('defaults to 50, honours every limit 1..200 and orders by id', async () => {
    const first = await ws.api('GET', '/definitions');
    expect(first.json.items).toHaveLength(50);
    for (const limit of [1, 2, 7, 117, 200]) {
      const r = await ws.api('GET', `/definitions?limit=${limit}`);
      expect(r.json.items.length).toBe(Math.min(limit, 117));
    }
    const items = await all('limit=7');
    expect(items).toHaveLength(117);
    const ids = items.map((d) => d.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(117);
  });

  it('refuses bad limits, cursors and filters with 400', async () => {
    for (const q of [
      'limit=0',
      'limit=201',
      'limit=1.5',
      'limit=abc',
      'limit=',
      'limit=-1',
      'limit=1e2',
      'limit=1&limit=2',
      'cursor=abc',
      'cursor=',
      'includeArchived=yes',
      'includeArchived=1',
      'moduleKeys=clients',
      'moduleKeys[]=customers&moduleKeys[]=nope',
      'limit=%zz',
    ]) {
      expectError(await ws.api('GET', `/definitions?${q}`), 400);
    }
  });

  it('applies visibility and module filters before the limit, in every wire form', async () => {
    const visible = await all('limit=200');
    for (const q of ['moduleKeys=customers&moduleKeys=investors', 'moduleKeys[]=customers&moduleKeys[]=investors', 'moduleKeys[0]=customers&moduleKeys[1]=investors']) {
      const page = await ws.api('GET', `/definitions?limit=30&${q}`);
      expect(page.json.items).toHaveLength(30);
      expect(page.json.items.every((d: any) => d.module_key !== 'partners' && d.state !== 'archived')).toBe(true);
      const items = await all(`limit=9&${q}`);
      expect(items.map((d) => d.id)).toEqual(visible.filter((d) => d.module_key !== 'partners').map((d) => d.id));
    }
    const withArchived = await all('limit=200&includeArchived=true');
    expect(withArchived).toHaveLength(130);
  });

  it('treats cursors as boundaries: records inserted during paging after the cursor appear, before it do not', async () => {
    const w2 = await ref.workspace();
    await Promise.all(Array.from({ length: 20 }, (_, i) => w2.definition({ name: `x${i}` })));
    const p1 = await w2.api('GET', '/definitions?limit=10');
    const cursor = p1.json.nextCursor;
    const inserted: string[] = [];
    for (let i = 0; i < 20; i++) inserted.push((await w2.api('POST', '/definitions', { body: { ...validCreate(), name: `late${i}` } })).json.id);
    const rest: string[] = [];
    let c = cursor;
    while (c) {
      const r = await w2.api('GET', `/definitions?limit=10&cursor=${c}`);
      expect(r.json.items.every((d: any) => d.id > cursor)).toBe(true);
      rest.push(...r.json.items.map((d: any) => d.id));
      c = r.json.nextCursor;
    }
    const expectedLate = inserted.filter((id) => id > cursor);
    expect(rest.filter((id) => inserted.includes(id)).sort()).toEqual(expectedLate.sort());
    expect(new Set([...p1.json.items.map((d: any) => d.id), ...rest]).size).toBe(10 + rest.length);
  });

  it('pages concurrently with inserts without repeating or skipping surviving items', async () => {
    const w3 = await ref.workspace();
    await Promise.all(Array.from({ length: 60 }, (_, i) => w3.definition({ name: `y${i}` })));
    const original = (await w3.api('GET', '/definitions?limit=200')).json.items.map((d: any) => d.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    const inserts = Promise.all(Array.from({ length: 30 }, (_, i) => w3.api('POST', '/definitions', { body: { ...validCreate(), name: `z${i}` } })));
    do {
      const r: any = await w3.api('GET', `/definitions?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...r.json.items.map((d: any) => d.id));
      cursor = r.json.nextCursor;
    } while (cursor);
    await inserts;
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of original) expect(seen).toContain(id);
  });

  it('pages GET /operations and data collections with the same envelope', async () => {
    const w4 = await ref.workspace();
    const acc = await w4.account();
    for (let i = 0; i < 5; i++) await w4.person(acc, `p${i}`);
    const rel = await w4.api('GET', '/data/relationships?limit=2');
    expect(rel.json.items).toHaveLength(2);
    expect(rel.json.nextCursor).toBe(rel.json.items[1].id);
    for (let i = 0; i < 3; i++) await w4.api('POST', '/operations', { body: { operation: 'graph.context_refresh', reason: 'r', arguments: { customerIds: [acc] } } });
    const ops = await w4.api('GET', '/operations?limit=2');
    expect(ops.json.items).toHaveLength(2);
    const rest = await w4.api('GET', `/operations?cursor=${ops.json.nextCursor}`);
    expect(rest.json).toMatchObject({ nextCursor: null });
    expect(rest.json.items).toHaveLength(1);
    for (const path of ['/data/icps', '/data/matches', '/data/lookalikes', `/data/accounts/${acc}/contacts`, `/data/accounts/${acc}/evidence`, `/data/accounts/${acc}/deals`]) {
      const r = await w4.api('GET', path);
      expect(r.status, path).toBe(200);
      expect(Array.isArray(r.json.items)).toBe(true);
      expect(r.json).toHaveProperty('nextCursor');
    }
    expectError(await w4.api('GET', '/data/icps?limit=0'), 400);
  });
});
