/**
 * The byte-delaying proxy of `wgc bench --latency` (src/bench/latency-proxy.ts): what passes
 * through arrives whole and in order, each direction no sooner than the delay, and every
 * request on a kept-alive connection is counted. Only lower bounds on time, which no load can
 * break: a timer never fires before its delay.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Agent, request } from 'undici';
import { startLatencyProxy, type LatencyProxy } from '../../src/bench/latency-proxy.ts';

const DELAY = 30;
let server: Server;
let proxy: LatencyProxy;
/** When the server saw each request (ms, performance.now()). */
const seen: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(performance.now());
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-method': req.method ?? '' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy = await startLatencyProxy(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, DELAY);
});
afterAll(async () => {
  await proxy?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the latency proxy without a rate limit (bytes delayed)', () => {
  test('bodies pass whole and in order; each direction waits the delay; kept-alive requests are counted', async () => {
    const agent = new Agent({ connections: 1 });
    try {
      // A body of many chunks (larger than a socket read), so order across chunks matters.
      const big = Buffer.alloc(3 * 1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 11)) & 0xff;
      const before = proxy.forwarded;
      for (let i = 0; i < 3; i++) {
        const sent = performance.now();
        const res = await request(`${proxy.origin}/echo/${i}`, { method: 'POST', body: big, dispatcher: agent });
        const back = Buffer.from(await res.body.arrayBuffer());
        const answered = performance.now();
        expect(res.statusCode).toBe(200);
        expect(back.equals(big)).toBe(true);
        // The server saw the request no sooner than one delay, the answer came no sooner than two.
        expect(seen.at(-1)! - sent).toBeGreaterThanOrEqual(DELAY - 1);
        expect(answered - sent).toBeGreaterThanOrEqual(2 * DELAY - 2);
      }
      // One connection (connections: 1), three requests on it: each counted once.
      expect(proxy.forwarded - before).toBe(3);
    } finally {
      await agent.close();
    }
  });

  test('a GET without a body passes through too', async () => {
    const res = await request(`${proxy.origin}/nothing`, { method: 'GET' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-method']).toBe('GET');
    expect((await res.body.arrayBuffer()).byteLength).toBe(0);
  });
});
