/**
 * The hostile target itself: each mode misbehaves as documented (seen with plain node:http
 * and node:net clients, not with the client under test), close() ends never-answered sockets
 * and drips, and docs/hostile-targets.md describes every mode.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import { HOSTILE_MODES, startHostile, type HostileMode, type HostileOptions, type HostileTarget } from '../../fixtures/hostile/server.ts';
import { PACKAGE_ROOT } from './helpers/run-wgc.ts';

let target: HostileTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function start(mode: HostileMode, opts: HostileOptions = {}): Promise<HostileTarget> {
  target = await startHostile(mode, opts);
  return target;
}

/** Raw bytes of one GET, as long as they come within `ms` (then the socket is dropped). */
function raw(t: HostileTarget, path: string, ms: number, headers = ''): Promise<{ bytes: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const url = new URL(t.baseUrl);
    const socket = connect(Number(url.port), '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes: Buffer.concat(chunks), closed });
    };
    socket.on('close', () => {
      closed = true;
      done();
    });
    socket.write(`GET ${path} HTTP/1.1\r\nhost: ${url.host}\r\n${headers}\r\n`);
    const timer = setTimeout(done, ms);
  });
}

test('docs/hostile-targets.md describes every mode', () => {
  const doc = readFileSync(`${PACKAGE_ROOT}docs/hostile-targets.md`, 'utf8');
  const missing = HOSTILE_MODES.filter((m) => !doc.includes(`### \`${m}\``));
  expect(missing).toEqual([]);
});

describe('modes below HTTP', () => {
  test('silent answers nothing; close() ends the open sockets at once', async () => {
    const t = await start('silent');
    const pending = raw(t, '/api/v1/me', 5_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.stats.openSockets).toBe(1);
    const t0 = Date.now();
    await t.close();
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(t.stats.openSockets).toBe(0);
    expect((await pending).bytes.length).toBe(0);
  });

  test('slow-drip sends about one byte per interval and never ends', async () => {
    const t = await start('slow-drip', { settings: { dripIntervalMs: 20 } });
    const { bytes, closed } = await raw(t, '/api/v1/definitions', 400);
    const body = bytes.toString().split('\r\n\r\n')[1] ?? '';
    expect(bytes.toString()).toMatch(/^HTTP\/1\.1 200/);
    expect(body.length).toBeGreaterThan(5);
    expect(closed).toBe(false);
  });

  test('status-1xx-storm sends informational responses and never a final one', async () => {
    const t = await start('status-1xx-storm', { settings: { dripIntervalMs: 20 } });
    const text = (await raw(t, '/api/v1/definitions', 300)).bytes.toString();
    expect(text.match(/HTTP\/1\.1 10[23]/g)?.length).toBeGreaterThan(3);
    expect(text).not.toMatch(/HTTP\/1\.1 [2-9]\d\d/);
  });

  test('huge-headers floods header lines (bounded by hugeHeaderBytes)', async () => {
    const t = await start('huge-headers', { settings: { hugeHeaderBytes: 200_000 } });
    const text = (await raw(t, '/api/v1/definitions', 500)).bytes.toString();
    expect(text.length).toBeGreaterThan(200_000);
    expect(text).toMatch(/\r\n\r\n\{\}$/);
  });

  test('reset and not-http', async () => {
    const t = await start('reset');
    expect((await raw(t, '/api/v1/x', 200)).closed).toBe(true);
    await t.close();
    const n = await start('not-http');
    expect((await raw(n, '/api/v1/x', 200)).bytes.toString()).toMatch(/^SSH-2\.0-/);
  });
});

describe('bodies', () => {
  test('huge-body streams exactly hugeBodyBytes with a matching content-length', async () => {
    const t = await start('huge-body', { settings: { hugeBodyBytes: 3_000_000 } });
    const res = await fetch(`${t.baseUrl}/api/v1/definitions`);
    expect(res.headers.get('content-length')).toBe('3000000');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(3_000_000);
    expect(body.subarray(0, 10).toString()).toBe('{"items":[');
  });

  test('gzip-bomb: a small body that decodes to bombBytes', async () => {
    const t = await start('gzip-bomb', { settings: { bombBytes: 50_000_000 } });
    const wire = await new Promise<Buffer>((resolve, reject) => {
      request(`${t.baseUrl}/api/v1/definitions`, (res) => {
        expect(res.headers['content-encoding']).toBe('gzip');
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      })
        .on('error', reject)
        .end();
    });
    expect(wire.length).toBeLessThan(50_000_000 / 500);
    expect(gunzipSync(wire).length).toBe(50_000_000);
  });

  test('deep-json is valid JSON nested deepJsonDepth levels', async () => {
    const t = await start('deep-json', { settings: { deepJsonDepth: 1000 } });
    const body = (await (await fetch(`${t.baseUrl}/api/v1/definitions`)).json()) as { items: unknown[] };
    let depth = 0;
    for (let v: unknown = body.items[0]; Array.isArray(v); v = v[0]) depth++;
    expect(depth).toBe(1000);
  });
});

describe('origins, keys and control', () => {
  test('redirect-other-origin points at the second listener, which records what it gets', async () => {
    const t = await start('redirect-other-origin', { settings: { redirectStatus: 307 } });
    const res = await fetch(`${t.baseUrl}/api/v1/definitions?limit=1`, { redirect: 'manual' });
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toBe(`${t.otherOrigin}/api/v1/definitions?limit=1`);
    expect(t.stats.otherOrigin).toEqual([]);
    await fetch(res.headers.get('location')!, { headers: { 'x-api-key': 'wgk_not_a_real_key' } });
    expect(t.stats.otherOrigin).toHaveLength(1);
    expect(t.stats.otherOrigin[0]!.headers['x-api-key']).toBe('wgk_not_a_real_key');
  });

  test('meOk lets GET /me through for known keys only', async () => {
    const secret = `wgk_${'77'.repeat(20)}`;
    const t = await start('silent', { meOk: true, keys: { [secret]: { role: 'analyst', scopes: ['graph:read'] } } });
    const me = await fetch(`${t.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(await me.json()).toMatchObject({ role: 'analyst', scopes: ['graph:read'], beta: true });
    expect((await fetch(`${t.baseUrl}/api/v1/me`, { headers: { 'x-api-key': 'wgk_unknown_0000' } })).status).toBe(401);
    expect(t.stats.meRequests).toBe(2);
    expect(t.stats.modeRequests).toBe(0);
    expect(t.knownSecrets()).toEqual([secret]);
  });
});
