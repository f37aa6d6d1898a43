/** Redaction at capture: a known secret never reaches a stored exchange; curl uses env refs. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { createHttpClient, SecretRegistry, toCurl, curlEnvVars, type HttpClient } from '../../src/http/index.ts';
import type { KeyHandle } from '../../src/engine/check.ts';
import { startStub, type Stub } from './helpers/stub-server.ts';

const SECRET = 'wg_live_S3cr3tValue+/=abc';
const key: KeyHandle = { name: 'admin', secret: SECRET, role: 'owner', scopes: ['admin'] };

let stub: Stub | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await stub?.close();
  client = undefined;
  stub = undefined;
});

describe('redaction', () => {
  test('a secret echoed in headers, body, URL and encoded forms never reaches the exchange', async () => {
    stub = await startStub((req, res, body) => {
      const auth = String(req.headers.authorization ?? req.headers['x-api-key']);
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-echo-auth': auth,
        'set-cookie': `sid=${encodeURIComponent(SECRET)}`,
      });
      res.end(
        JSON.stringify({
          echoedAuth: auth,
          echoedBody: body,
          url: req.url,
          b64: Buffer.from(SECRET).toString('base64'),
          uri: encodeURIComponent(SECRET),
        }),
      );
    });
    const secrets = new SecretRegistry();
    client = createHttpClient({ baseUrl: stub.url, timeoutMs: 2000, secrets });
    const exchanges = [
      await client.send({ method: 'POST', path: '/definitions', query: { token: SECRET }, body: { note: SECRET }, key }),
      await client.send({ method: 'GET', path: '/me', key, auth: 'x-api-key' }),
    ];
    const stored = JSON.stringify(exchanges);
    expect(stub.received[0]!.headers.authorization).toBe(`Bearer ${SECRET}`); // it was really sent...
    expect(stored).not.toContain(SECRET); // ...but never stored
    expect(stored).not.toContain(encodeURIComponent(SECRET));
    expect(stored).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(exchanges[0]!.request.headers.authorization).toBe('Bearer [REDACTED:admin]');
    expect(exchanges[1]!.request.headers['x-api-key']).toBe('[REDACTED:admin]');
    expect(exchanges[0]!.response?.headers['x-echo-auth']).toBe('Bearer [REDACTED:admin]');
    expect((exchanges[0]!.response?.json as { echoedAuth: string }).echoedAuth).toBe('Bearer [REDACTED:admin]');
    expect(exchanges[0]!.response?.isJson).toBe(true);
  });

  test('credential headers are redacted even when the value is not a registered secret', () => {
    const secrets = new SecretRegistry();
    expect(secrets.redactHeader('Authorization', 'Bearer wg_bogus_key')).toBe('Bearer [REDACTED:authorization]');
    expect(secrets.redactHeader('X-Api-Key', 'whatever')).toBe('[REDACTED:x-api-key]');
    expect(secrets.redactHeader('x-other', 'whatever')).toBe('whatever');
  });

  test('property: every form of every secret is redacted, whatever characters the secrets hold (regex metacharacters included), and text without one is returned as is', () => {
    const secretArb = fc.string({ unit: fc.constantFrom(...'ab+/=.*?^$()[]{}|\\-_%"\n'.split('')), minLength: 6, maxLength: 24 });
    fc.assert(
      fc.property(fc.uniqueArray(secretArb, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.string({ maxLength: 20 }), (secrets, picks, filler) => {
        const registry = new SecretRegistry();
        secrets.forEach((s, i) => registry.add(s, `k${i}`));
        // The plain, URL-encoded, base64 and JSON-escaped forms of the picked secrets, between filler.
        const forms = picks.map((p) => {
          const s = secrets[p % secrets.length]!;
          return [s, encodeURIComponent(s), Buffer.from(s).toString('base64'), JSON.stringify(s).slice(1, -1)][p % 4]!;
        });
        const text = `${filler}${forms.join(filler)}${filler}`;
        const out = registry.redact(text);
        for (const s of secrets) expect(out).not.toContain(s);
        expect(out).toContain('[REDACTED:');
        const clean = filler.replace(/[ab]/g, 'c');
        if (!secrets.some((s) => clean.includes(s))) expect(registry.redact(clean)).toBe(clean);
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  test('property: secrets that overlap in the text are replaced exactly as one secret at a time, longest first, would replace them', () => {
    // Secrets and text of two letters: occurrences overlap and contain each other often, and no
    // encoded form (base64 holds other letters) can occur, so the plain replacement is the oracle.
    const ab = (min: number, max: number) => fc.string({ unit: fc.constantFrom('a', 'b'), minLength: min, maxLength: max });
    fc.assert(
      fc.property(fc.uniqueArray(ab(6, 10), { minLength: 1, maxLength: 5 }), fc.array(fc.oneof(ab(0, 8), fc.nat()), { maxLength: 12 }), (secrets, parts) => {
        const registry = new SecretRegistry();
        secrets.forEach((s, i) => registry.add(s, `k${i}`));
        const text = parts.map((p) => (typeof p === 'number' ? secrets[p % secrets.length]! : p)).join('');
        const oneAtATime = secrets
          .map((s, i) => ({ s, marker: `[REDACTED:k${i}]` }))
          .sort((x, y) => y.s.length - x.s.length)
          .reduce((out, { s, marker }) => out.split(s).join(marker), text);
        expect(registry.redact(text)).toBe(oneAtATime);
      }),
      { numRuns: 500, seed: 7 },
    );
  });

  test('a secret relabelled after its patterns were used is redacted with its new label, in every form', () => {
    const secrets = new SecretRegistry();
    secrets.add('wgc_live_relabelled_secret', 'key');
    const b64 = Buffer.from('wgc_live_relabelled_secret').toString('base64');
    expect(secrets.redact(`a wgc_live_relabelled_secret b ${b64}`)).toBe('a [REDACTED:key] b [REDACTED:key]');
    secrets.add('wgc_live_relabelled_secret', 'admin');
    expect(secrets.redact(`a wgc_live_relabelled_secret b ${b64}`)).toBe('a [REDACTED:admin] b [REDACTED:admin]');
    expect(secrets.labelOf('wgc_live_relabelled_secret')).toBe('admin');
  });

  test('a header name holding a secret is redacted whether the secret came before or after the name was first seen, under its label of the moment', () => {
    const secrets = new SecretRegistry();
    secrets.add('wgc_live_first_secret', 'first');
    const headers = { 'X-WGC_LIVE_FIRST_SECRET': 'v', 'x-wgc_live_later_secret': 'w', 'content-type': 'application/json' };
    expect(secrets.redactHeaders(headers)).toEqual({ 'x-[REDACTED:first]': 'v', 'x-wgc_live_later_secret': 'w', 'content-type': 'application/json' });
    // A name seen before the secret was known is searched again once it is.
    secrets.add('wgc_live_later_secret', 'later');
    expect(secrets.redactHeaders(headers)).toEqual({ 'x-[REDACTED:first]': 'v', 'x-[REDACTED:later]': 'w', 'content-type': 'application/json' });
    // And a relabel shows in the names as in the text.
    secrets.add('wgc_live_first_secret', 'admin');
    expect(Object.keys(secrets.redactHeaders(headers))[0]).toBe('x-[REDACTED:admin]');
  });

  test('the longest secret wins when one secret contains another', () => {
    const secrets = new SecretRegistry();
    secrets.add('abcdef123456', 'short');
    secrets.add('abcdef123456-and-more', 'long');
    expect(secrets.redact('x abcdef123456-and-more y abcdef123456')).toBe('x [REDACTED:long] y [REDACTED:short]');
  });
});

describe('curl', () => {
  test('reproduces the request with secrets as env-var references, runnable by a shell', async () => {
    stub = await startStub((req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ auth: req.headers.authorization, body, url: req.url }));
    });
    client = createHttpClient({ baseUrl: stub.url, timeoutMs: 2000, secrets: new SecretRegistry() });
    const ex = await client.send({ method: 'POST', path: '/definitions', query: { q: "it's" }, body: { name: "O'Brien $HOME" }, idempotencyKey: 'k 1', key });
    const curl = toCurl(ex);
    expect(curl).not.toContain(SECRET);
    expect(curl).toContain('"${WGC_KEY_ADMIN}"');
    expect(curlEnvVars(ex)).toEqual(['WGC_KEY_ADMIN']);
    // Replaying through a real shell must send the same request (curl is needed on the machine).
    // (Async: the stub answering the replay lives on this event loop.)
    let out: string;
    try {
      ({ stdout: out } = await promisify(execFile)('sh', ['-c', curl], { env: { ...process.env, WGC_KEY_ADMIN: SECRET }, encoding: 'utf8' }));
    } catch (e) {
      if ((e as { code?: number }).code === 127) return void console.warn('curl not installed; replay not verified');
      throw e;
    }
    const replayed = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)) as { auth: string; body: string; url: string };
    expect(replayed).toEqual({ auth: `Bearer ${SECRET}`, body: stub.received[0]!.body, url: stub.received[0]!.url });
  });
});
