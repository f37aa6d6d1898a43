/** The HTTP client's bounds: time, size, decompression, redirects, insecure transport, 429. */
import { gzipSync, deflateSync, deflateRawSync, brotliCompressSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import { createHttpClient, RetryBudget, SecretRegistry, type HttpClient } from '../../src/http/index.ts';
import { parseRetryAfter } from '../../src/http/retry.ts';
import { json, startStub, type Stub } from './helpers/stub-server.ts';

let stub: Stub | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await stub?.close();
  client = undefined;
  stub = undefined;
});

function clientFor(url: string, extra: Partial<Parameters<typeof createHttpClient>[0]> = {}): HttpClient {
  client = createHttpClient({ baseUrl: url, timeoutMs: 2000, secrets: new SecretRegistry(), ...extra });
  return client;
}

describe('timeouts', () => {
  test('a server that never sends headers times out within the bound', async () => {
    stub = await startStub(() => {
      /* never answers */
    });
    const c = clientFor(stub.url, { timeoutMs: 300 });
    const t0 = Date.now();
    const ex = await c.send({ method: 'GET', path: '/me', key: null });
    expect(ex.error?.kind).toBe('timeout');
    expect(ex.error?.message).toContain('300 ms');
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(ex.response).toBeUndefined();
  });

  test('a body that drips slower than the total timeout times out (headers alone are not enough)', async () => {
    stub = await startStub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
      const t = setInterval(() => res.write(' '), 50); // keeps the socket busy: an idle timeout would never fire
      res.on('close', () => clearInterval(t));
    });
    const c = clientFor(stub.url, { timeoutMs: 400 });
    const t0 = Date.now();
    const ex = await c.send({ method: 'GET', path: '/me', key: null });
    expect(ex.error?.kind).toBe('timeout');
    expect(ex.error?.message).toContain('body');
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe('size caps', () => {
  test('a body over maxResponseBytes is cut, kept as a prefix and reported too-large', async () => {
    stub = await startStub((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(200_000));
    });
    const ex = await clientFor(stub.url, { maxResponseBytes: 10_000 }).send({ method: 'GET', path: '/big', key: null });
    expect(ex.error?.kind).toBe('too-large');
    expect(ex.response?.truncated).toBe(true);
    expect(ex.response?.text.length).toBe(10_000);
    expect(ex.response?.status).toBe(200);
  });

  test('a gzip bomb stops at the decompression cap', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024)); // ~64 KiB on the wire, 64 MiB decoded
    stub = await startStub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const ex = await clientFor(stub.url, { maxDecompressedBytes: 1024 * 1024 }).send({ method: 'GET', path: '/me', key: null });
    expect(ex.error?.kind).toBe('decompression');
    expect(ex.response?.bytes).toBeLessThanOrEqual(1024 * 1024);
  });

  test.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
    ['br', brotliCompressSync],
  ] as const)('%s bodies are decoded', async (encoding, compress) => {
    const body = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => ({ i })) });
    stub = await startStub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(compress(Buffer.from(body)));
    });
    const ex = await clientFor(stub.url).send({ method: 'GET', path: '/x', key: null });
    expect(ex.error).toBeUndefined();
    expect(ex.response?.json).toEqual(JSON.parse(body));
  });

  test('corrupt gzip is a decompression error, not a crash', async () => {
    stub = await startStub((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(Buffer.from('definitely not gzip'));
    });
    const ex = await clientFor(stub.url).send({ method: 'GET', path: '/x', key: null });
    expect(ex.error?.kind).toBe('decompression');
  });
});

describe('redirects and transport security', () => {
  test('a redirect to another origin is recorded, never followed', async () => {
    stub = await startStub((_req, res) => {
      res.writeHead(302, { location: 'http://other.example/steal' });
      res.end();
    });
    const secrets = new SecretRegistry();
    const key = { name: 'admin', secret: 'wg_live_0123456789abcdef', role: 'owner' as const, scopes: ['admin' as const] };
    const ex = await clientFor(stub.url, { secrets }).send({ method: 'GET', path: '/me', key });
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(302);
    expect(ex.response?.headers.location).toBe('http://other.example/steal');
    expect(stub.received).toHaveLength(1);
  });

  test('plain http to a non-loopback host is refused before sending', async () => {
    const c = clientFor('http://api.example.invalid');
    const ex = await c.send({ method: 'GET', path: '/me', key: null });
    expect(ex.error?.kind).toBe('insecure-refused');
    expect(ex.error?.message).toContain('--allow-insecure-http');
    expect(c.requestCount).toBe(0);
  });

  test('--allow-insecure-http lets the request go out (here: to a name that does not resolve)', async () => {
    const c = clientFor('http://api.example.invalid', { allowInsecureHttp: true });
    const ex = await c.send({ method: 'GET', path: '/me', key: null });
    expect(ex.error?.kind).toBe('connection');
    expect(c.requestCount).toBe(1);
  });
});

describe('429 handling', () => {
  function limited(retryAfter: string | undefined, okAfter: number): Promise<Stub> {
    return startStub((_req, res, _body, n) => {
      if (n <= okAfter) json(res, 429, { defined: true, code: 'TOO_MANY_REQUESTS', status: 429, message: 'Rate limit exceeded' }, retryAfter ? { 'retry-after': retryAfter } : {});
      else json(res, 200, { ok: true });
    });
  }

  test('Retry-After in seconds is honoured within maxWaitMs and counted', async () => {
    stub = await limited('2', 1);
    const waits: number[] = [];
    const c = clientFor(stub.url, { retry429: { maxRetries: 3, maxWaitMs: 5000, budget: 10 }, sleep: async (ms) => void waits.push(ms) });
    const ex = await c.send({ method: 'GET', path: '/me', key: null });
    expect(ex.response?.status).toBe(200);
    expect(ex.retries).toBe(1);
    expect(waits).toEqual([2000]);
    expect(c.requestCount).toBe(2);
  });

  test('the real wait happens (1 s Retry-After, no injected sleep)', async () => {
    stub = await limited('1', 1);
    const t0 = Date.now();
    const ex = await clientFor(stub.url).send({ method: 'GET', path: '/me', key: null });
    expect(ex.response?.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
  });

  test('a Retry-After beyond maxWaitMs returns the 429 at once', async () => {
    stub = await limited('120', 5);
    const waits: number[] = [];
    const c = clientFor(stub.url, { retry429: { maxRetries: 3, maxWaitMs: 5000, budget: 10 }, sleep: async (ms) => void waits.push(ms) });
    const ex = await c.send({ method: 'GET', path: '/me', key: null });
    expect(ex.response?.status).toBe(429);
    expect(ex.retries).toBe(0);
    expect(waits).toEqual([]);
  });

  test('the run-wide budget is shared between clients and exhausts', async () => {
    stub = await limited('0', 100);
    const budget = new RetryBudget(3);
    const sleep = async (): Promise<void> => {};
    const a = createHttpClient({ baseUrl: stub.url, timeoutMs: 2000, secrets: new SecretRegistry(), retry429: { maxRetries: 2, maxWaitMs: 1000, budget }, sleep });
    const b = createHttpClient({ baseUrl: stub.url, timeoutMs: 2000, secrets: new SecretRegistry(), retry429: { maxRetries: 2, maxWaitMs: 1000, budget }, sleep });
    const ea = await a.send({ method: 'GET', path: '/me', key: null });
    const eb = await b.send({ method: 'GET', path: '/me', key: null });
    await a.close();
    await b.close();
    expect([ea.retries, eb.retries]).toEqual([2, 1]);
    expect(eb.response?.status).toBe(429);
    expect(budget.left).toBe(0);
  });

  test('retry429: false returns the first 429', async () => {
    stub = await limited('0', 1);
    const ex = await clientFor(stub.url).send({ method: 'GET', path: '/me', key: null, retry429: false });
    expect(ex.response?.status).toBe(429);
    expect(stub.received).toHaveLength(1);
  });

  test('Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('requests', () => {
  test('query objects repeat array keys; raw strings pass through; the API prefix and path prefix are kept', async () => {
    stub = await startStub((_req, res) => json(res, 200, {}));
    const c = clientFor(`${stub.url}/tenant-a/`);
    await c.send({ method: 'GET', path: '/definitions', query: { limit: 2, moduleKeys: ['customers', 'partners'], cursor: undefined }, key: null });
    await c.send({ method: 'GET', path: '/definitions', query: 'moduleKeys[0]=customers&x=%20', key: null });
    expect(stub.received.map((r) => r.url)).toEqual(['/tenant-a/api/v1/definitions?limit=2&moduleKeys=customers&moduleKeys=partners', '/tenant-a/api/v1/definitions?moduleKeys[0]=customers&x=%20']);
    expect(c.requestCount).toBe(2);
  });

  test('JSON bodies get a content type; raw bodies are sent as is; idempotency keys become headers', async () => {
    stub = await startStub((_req, res) => json(res, 200, {}));
    const c = clientFor(stub.url);
    await c.send({ method: 'POST', path: '/definitions', body: { name: 'x' }, idempotencyKey: 'k-1', key: null });
    await c.send({ method: 'POST', path: '/definitions', rawBody: '{"name":', headers: { 'Content-Type': 'text/plain' }, key: null });
    expect(stub.received[0]!.headers['content-type']).toBe('application/json');
    expect(stub.received[0]!.headers['idempotency-key']).toBe('k-1');
    expect(stub.received[0]!.body).toBe('{"name":"x"}');
    expect(stub.received[1]!.headers['content-type']).toBe('text/plain');
    expect(stub.received[1]!.body).toBe('{"name":');
  });

  test('a refused connection is a connection error, not a throw', async () => {
    stub = await startStub(() => {});
    const url = stub.url;
    await stub.close();
    stub = undefined;
    const ex = await clientFor(url).send({ method: 'GET', path: '/me', key: null });
    expect(ex.error?.kind).toBe('connection');
  });
});

describe('dead-target breaker', () => {
  test('after five requests without an answer, later requests are not sent (kind budget) except periodic probes; an answer closes it', async () => {
    const { DeadTargetBreaker } = await import('../../src/http/client.ts');
    const b = new DeadTargetBreaker(5, 20);
    const dead = { error: { kind: 'timeout' } } as never;
    const alive = { response: { status: 200 } } as never;
    for (let i = 0; i < 4; i++) {
      expect(b.shouldSkip()).toBe(false);
      b.record(dead);
    }
    expect(b.shouldSkip()).toBe(false);
    b.record(dead);
    expect(b.open).toBe(true);
    const decisions = Array.from({ length: 40 }, () => b.shouldSkip());
    expect(decisions.filter((skip) => !skip)).toHaveLength(2); // one probe in twenty
    b.record({ response: { status: 200 }, error: { kind: 'timeout' } } as never); // headers, then a stalled body
    expect(b.open).toBe(true);
    b.record(alive);
    expect(b.open).toBe(false);
    expect(b.shouldSkip()).toBe(false);
  });
});
