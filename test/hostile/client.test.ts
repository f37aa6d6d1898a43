/**
 * The bounded HTTP client (src/http) against every hostile mode directly: the exact error
 * kind, an answer within the per-request timeout (plus a small scheduling allowance), memory
 * bounded by the size caps whatever the target sends, nothing sent to another origin, and no
 * echoed secret in the captured exchange.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createHttpClient, SecretRegistry, type Exchange, type HttpClient, type HttpClientOptions } from '../../src/http/index.ts';
import type { KeyHandle } from '../../src/engine/check.ts';
import { MAX_CAPTURED_TEXT } from '../../src/http/transport.ts';
import { startHostile, type HostileMode, type HostileOptions, type HostileTarget } from '../../fixtures/hostile/server.ts';
import { findLeaks } from './helpers/leaks.ts';
import { measurePeak } from './helpers/memory.ts';

/** Per-request timeout of these tests. */
const TIMEOUT_MS = 300;
/**
 * What a request may take beyond its timeout: the abort, socket teardown and classification
 * on a shared 2-core machine. A request is bounded by TIMEOUT_MS + SLACK_MS.
 */
const SLACK_MS = 400;
/** Size cap of these tests (the default cap is 8 MiB; the bound must follow the cap). */
const CAP = 2 * 1024 * 1024;
/**
 * Memory a capped response may take at its peak: the wire bytes, the decoded copy, the text
 * (UTF-16 in V8) and its redacted copy, each at most CAP, plus 8 MiB of fixed overhead.
 */
const MEMORY_BOUND = 6 * CAP + 8 * 1024 * 1024;
/** What a target can have written into loopback socket buffers before the client stops reading. */
const SOCKET_BUFFERS = 8 * 1024 * 1024;

const SECRET = 'wgk_0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c';
const KEY: KeyHandle = { name: 'admin', secret: SECRET, role: 'owner', scopes: ['admin'] };

let target: HostileTarget | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await target?.close();
  expect(target?.stats.openSockets ?? 0).toBe(0);
  client = undefined;
  target = undefined;
});

async function send(mode: HostileMode, opts: HostileOptions = {}, extra: Partial<HttpClientOptions> = {}): Promise<{ ex: Exchange; ms: number; t: HostileTarget; c: HttpClient }> {
  target = await startHostile(mode, opts);
  const secrets = new SecretRegistry();
  client = createHttpClient({ baseUrl: target.baseUrl, timeoutMs: TIMEOUT_MS, maxResponseBytes: CAP, secrets, retry429: { maxRetries: 0 }, ...extra });
  const started = Date.now();
  const ex = await client.send({ method: 'GET', path: '/definitions', key: KEY });
  return { ex, ms: Date.now() - started, t: target, c: client };
}

describe('every request ends within the timeout with a typed error', () => {
  test.each([
    ['silent', 'timeout', false],
    ['slow-drip', 'timeout', true],
    ['headers-then-stall', 'timeout', true],
    ['slowloris-headers', 'timeout', false],
    ['status-1xx-storm', 'timeout', false],
  ] as const)('%s → %s', async (mode, kind, hasResponse) => {
    const { ex, ms } = await send(mode);
    expect(ex.error?.kind).toBe(kind);
    expect(ex.error?.message).toContain(`${TIMEOUT_MS} ms`);
    expect(ex.response !== undefined).toBe(hasResponse);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });

  test.each([
    ['reset', undefined],
    ['not-http', undefined],
    ['half-json', 200],
  ] as const)('%s → connection error, immediately', async (mode, status) => {
    const { ex, ms } = await send(mode);
    expect(ex.error?.kind).toBe('connection');
    expect(ex.response?.status).toBe(status);
    expect(ms).toBeLessThan(TIMEOUT_MS);
  });

  test('huge-headers → refused as too large, before the headers end', async () => {
    const { ex, ms, t } = await send('huge-headers');
    expect(ex.response).toBeUndefined();
    // Header floods are a size problem, whatever undici calls them.
    expect(ex.error?.kind).toBe('too-large');
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    // The parser stopped at its limit; what the target wrote beyond it sits in socket buffers.
    expect(t.stats.streamedBytes).toBeLessThan(SOCKET_BUFFERS);
  });

  test('deep-json → too-large: the body is kept as text, never handed on as a value no reader can walk', async () => {
    const { ex } = await send('deep-json');
    expect(ex.error?.kind).toBe('too-large');
    expect(ex.error?.message).toContain('nests deeper');
    expect(ex.response?.status).toBe(200);
    expect(ex.response?.isJson).toBe(false);
    expect(ex.response?.json).toBeUndefined();
  });
});

describe('answers that are complete but wrong are captured as they are', () => {
  test.each([
    ['invalid-json', 200, false],
    ['empty-200', 200, false],
    ['wrong-content-type', 200, true],
    ['html-error-page', 502, false],
    ['status-999', 999, true],
    ['endless-cursor', 200, true],
    ['cursor-loop', 200, true],
    ['control-broken', 503, true],
  ] as const)('%s → status %i, isJson %s, no transport error', async (mode, status, isJson) => {
    const { ex, ms } = await send(mode);
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(status);
    expect(ex.response?.isJson).toBe(isJson);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });
});

describe('size and decompression caps bound memory, whatever the target sends', () => {
  test.each([
    ['huge-body', 'too-large'],
    ['gzip-bomb', 'decompression'],
    ['deflate-bomb', 'decompression'],
    ['br-bomb', 'decompression'],
  ] as const)('%s → %s, at most the cap kept, memory bounded by the cap', async (mode, kind) => {
    const { result, peak } = await measurePeak(() => send(mode, {}, { timeoutMs: 5_000 }));
    const { ex, ms, t } = result;
    expect(ex.error?.kind).toBe(kind);
    expect(ex.response?.status).toBe(200);
    expect(ex.response?.bytes).toBeLessThanOrEqual(CAP);
    // What the exchange keeps (and every report renders) is bounded apart from the cap.
    expect(ex.response?.text.length).toBeLessThanOrEqual(MAX_CAPTURED_TEXT);
    // The reading stopped: the target put little more than the cap on the wire.
    expect(t.stats.streamedBytes).toBeLessThan(CAP + SOCKET_BUFFERS);
    expect(peak.heapGrowth).toBeLessThan(MEMORY_BOUND);
    expect(ms).toBeLessThan(5_000);
  });
});

describe('keys stay with the target', () => {
  test.each([301, 302, 303, 307, 308] as const)('a %i to another origin is returned, never followed', async (status) => {
    const { ex, t } = await send('redirect-other-origin', { settings: { redirectStatus: status } });
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(status);
    expect(ex.response?.headers.location).toContain(t.otherOrigin);
    expect(t.stats.otherOrigin).toEqual([]);
  });

  test.each(['bearer', 'x-api-key'] as const)('echo-key (%s): no form of the secret is captured', async (auth) => {
    target = await startHostile('echo-key');
    const secrets = new SecretRegistry();
    client = createHttpClient({ baseUrl: target.baseUrl, timeoutMs: TIMEOUT_MS, secrets, retry429: { maxRetries: 0 } });
    const exchanges: Exchange[] = [];
    // Four requests: the mode rotates 401, 400, 200 and 500.
    for (let i = 0; i < 4; i++) exchanges.push(await client.send({ method: 'GET', path: '/definitions', key: KEY, auth }));
    expect(exchanges.map((e) => e.response?.status).sort()).toEqual([200, 400, 401, 500]);
    expect(findLeaks({ exchanges: JSON.stringify(exchanges) }, [SECRET])).toEqual([]);
  });
});
