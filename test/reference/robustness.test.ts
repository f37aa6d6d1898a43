/**
 * Robustness of the reference target: no input produces a 500 or a crash; every API error is
 * the envelope. Fuzzes every route with random JSON, malformed JSON, wrong content types,
 * oversized and deeply nested bodies, odd paths, queries and headers.
 */
import fc from 'fast-check';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/reference/router.ts';
import { startReference } from '../../src/reference/index.ts';
import { Ref, type Res, type Ws } from './helpers.ts';

let ref: Ref;
let ws: Ws;
let defId: string;
let accId: string;
beforeAll(async () => {
  ref = await Ref.start();
  ws = await ref.workspace();
  defId = (await ws.definition()).id;
  accId = await ws.account();
});
afterAll(() => ref.close());

const seed = Number(process.env.FC_SEED ?? Date.now() % 100000);

function expectEnvelope(r: Res, what: string): void {
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
  if (r.status >= 400) {
    expect(r.json, what).toMatchObject({ defined: true, status: r.status });
    expect(typeof r.json.code).toBe('string');
    expect(typeof r.json.message).toBe('string');
  }
}

/** A GET with a body (fetch refuses to send one). */
function rawGet(path: string, body: string): Promise<Res> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${ref.ref.baseUrl}/api/v1${path}`);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'GET',
        headers: { authorization: `Bearer ${ws.owner.secret}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: new Headers(), text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const paths = ROUTES.map((r) => ({ method: r.method, path: r.pattern.replace(':definitionId', defId).replace(':id', accId) }));

describe('robustness', () => {
  it('answers random JSON bodies on every route without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.jsonValue({ maxDepth: 4 }), fc.option(fc.string({ maxLength: 20 }), { nil: undefined }), async (route, body, idem) => {
        const o = { idem: idem === undefined ? undefined : idem.replace(/[^\x21-\x7e]/g, '') || undefined };
        const r = route.method === 'GET' ? await rawGet(route.path, JSON.stringify(body)) : await ws.api(route.method, route.path, { ...o, body });
        expectEnvelope(r, `${route.method} ${route.path}`);
      }),
      { numRuns: 300, seed },
    );
  });

  it('answers random object bodies shaped like the real ones without a 5xx', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
      fc.uuid(),
      fc.constant(accId),
      fc.constant(defId),
    );
    const keys = [
      'name',
      'reason',
      'moduleKey',
      'entityKinds',
      'valueType',
      'enumValues',
      'operation',
      'arguments',
      'customerIds',
      'customer_id',
      'changes',
      'fromSlug',
      'intoSlug',
      'decision_trace',
      'job',
      'definitionIds',
      'properties',
      '__proto__',
      'constructor',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths.filter((p) => p.method !== 'GET')), fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 8 }), async (route, body) => {
        expectEnvelope(await ws.api(route.method, route.path, { body }), `${route.method} ${route.path}`);
      }),
      { numRuns: 300, seed },
    );
  });

  it('refuses malformed JSON, wrong content types and bad encodings with 400', async () => {
    for (const raw of ['{', '{"a":}', 'nul', '[1,2', '{"a":1}x', '\u0000', '"\\ud800"', '{"a":1,}']) {
      const r = await ws.api('POST', '/definitions', { raw, headers: { 'content-type': 'application/json' } });
      expect(r.status, raw).toBe(400);
      expectEnvelope(r, raw);
    }
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/jsonx', '']) {
      const r = await ws.api('POST', '/definitions', { raw: '{"name":"x"}', headers: { 'content-type': type } });
      expect(r.status, type).toBe(400);
      expectEnvelope(r, type);
    }
    const r = await ws.api('POST', '/definitions', { raw: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    for (const body of [[], 'str', 1, null, true]) expect((await ws.api('POST', '/definitions', { body })).status).toBe(400);
  });

  it('refuses oversized bodies without buffering them and survives deep nesting', async () => {
    const huge = await ws.api('POST', '/definitions', { raw: 'x'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'application/json' } });
    expect(huge.status).toBe(400);
    expectEnvelope(huge, 'huge');
    const deep = '['.repeat(500_000) + ']'.repeat(500_000);
    const r1 = await ws.api('POST', '/definitions', { raw: deep, headers: { 'content-type': 'application/json' } });
    expect(r1.status).toBe(400);
    const deepObj = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const r2 = await ws.api('POST', '/operations', { raw: deepObj, headers: { 'content-type': 'application/json' } });
    expect(r2.status).toBe(400);
    const trace = { reason: 'r', factors: [{ criterion: 'c', status: 'unknown', rationale: JSON.parse('['.repeat(60) + ']'.repeat(60)) }] };
    expectEnvelope(await ws.api('POST', '/definitions', { body: { name: 'n', decision_trace: trace } }), 'nested trace');
    // A chunked body over the cap with no Content-Length.
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${ref.ref.baseUrl}/api/v1/definitions`);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { authorization: `Bearer ${ws.owner.secret}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let i = 0; i < 24; i++) req.write(chunk);
      req.end();
    });
    expect(status).toBe(400);
    expect((await ws.api('GET', '/me')).status).toBe(200);
  });

  it('answers odd paths, methods, queries and headers with the envelope', async () => {
    const odd = [
      '/',
      '/api',
      '/api/v1',
      '/api/v1/',
      '/api/v1/nope',
      '/api/v1/definitions/',
      '/api/v1//definitions',
      '/api/v1/definitions/%zz',
      '/api/v1/definitions/x/y/z',
      '/api/v1/data/accounts/',
      '/api/v1/../../etc/passwd',
      `/api/v1/definitions?limit=${'9'.repeat(400)}`,
      '/api/v1/definitions?%',
      '/api/v1/definitions?&&==&',
      '/api/v1/graph/traces?kind=account&id=%00',
    ];
    for (const p of odd) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const r = await fetch(ref.ref.baseUrl + p, { method, headers: { authorization: `Bearer ${ws.owner.secret}`, 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
        const text = await r.text();
        expect(r.status, `${method} ${p}`).toBeLessThan(500);
        expect(r.status).toBeGreaterThanOrEqual(200);
        if (r.status >= 400) expect(JSON.parse(text)).toMatchObject({ defined: true, status: r.status });
      }
    }
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths.filter((p) => p.method === 'GET')), fc.webQueryParameters(), fc.string({ maxLength: 60 }), async (route, q, junk) => {
        const r = await ws.api('GET', `${route.path}?${q}`, { headers: { 'x-api-key': ws.owner.secret, 'x-junk': junk.replace(/[^\x20-\x7e]/g, '') } });
        expectEnvelope(r, `GET ${route.path}?${q}`);
      }),
      { numRuns: 200, seed },
    );
  });

  it('starts well under a second and closes cleanly', async () => {
    const t0 = performance.now();
    const r = await startReference();
    const started = performance.now() - t0;
    const res = await fetch(`${r.baseUrl}/api/v1/me`);
    expect(res.status).toBe(401);
    await r.close();
    await r.close();
    expect(started).toBeLessThan(500);
    await expect(fetch(`${r.baseUrl}/api/v1/me`)).rejects.toThrow();
  });
});
