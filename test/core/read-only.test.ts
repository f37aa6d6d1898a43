/**
 * `--read-only` end to end: every suite runs against the reference through a recording proxy,
 * and the API never sees a method that could change anything. Control-protocol calls
 * (provisioning) are not API calls and may still be made.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadSuiteDefs, discoverSuites } from '../../src/engine/discover.ts';
import { controlledRunContext } from '../../src/engine/context.ts';
import { runSuitesInProcess } from '../../src/engine/run.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';

let ref: RunningReference;
let proxy: Server;
let proxyUrl: string;
const apiCalls: string[] = [];

beforeAll(async () => {
  ref = await startReference();
  const upstream = new URL(ref.baseUrl);
  proxy = createServer((req, res) => {
    if (req.url?.startsWith('/api/')) apiCalls.push(`${req.method} ${req.url.split('?')[0]}`);
    const fwd = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    fwd.on('error', () => res.destroy());
    req.pipe(fwd);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((r) => proxy.close(() => r()));
  await ref.close();
});

test('with --read-only, no suite sends the API anything but reads (GET, HEAD, OPTIONS and the POST /query read)', async () => {
  const suites = await loadSuiteDefs(await discoverSuites('suites'));
  // Control goes straight to the reference: only API traffic is recorded.
  const run = controlledRunContext({ baseUrl: proxyUrl, controlUrl: ref.controlUrl, controlToken: ref.controlToken }, { seed: 1, numRuns: 2, readOnly: true });
  const out = await runSuitesInProcess(suites, run, { concurrency: 2 });
  expect(apiCalls.length, 'read-only checks still ran').toBeGreaterThan(50);
  // POST /query is the seed's live CRM read (4.9): a read sent with POST, allowed under --read-only.
  const writes = apiCalls.filter((c) => !/^(GET|HEAD|OPTIONS) /.test(c) && c !== 'POST /api/v1/query');
  expect(writes, 'API calls that could change something').toEqual([]);
  const disabled = out.results.filter((r) => r.outcome === 'disabled');
  expect(disabled.length, 'mutating checks are reported disabled').toBeGreaterThan(0);
  for (const r of disabled) expect(r.reason).toMatch(/read-only/);
  expect(out.results.filter((r) => r.outcome === 'failed' || r.outcome === 'harnessError').map((r) => `${r.checkId}: ${r.reason ?? r.findings[0]?.message}`)).toEqual([]);
}, 120_000);
