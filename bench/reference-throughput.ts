/**
 * Loopback throughput of the embedded reference target: GET /me and POST /definitions,
 * each for a bounded time (default 5 s, BENCH_SECONDS to change) with 32 keep-alive
 * connections. Run: npx tsx bench/reference-throughput.ts
 */
import { Agent, request } from 'undici';
import { startReference } from '../src/reference/index.ts';

const SECONDS = Math.min(30, Math.max(1, Number(process.env.BENCH_SECONDS ?? 5)));
const CONCURRENCY = 32;
const MAX_REQUESTS = 2_000_000;

async function control(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(`${base}/__control/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return r.json();
}

async function measure(name: string, dispatcher: Agent, url: string, opts: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<void> {
  const deadline = performance.now() + SECONDS * 1000;
  let done = 0;
  let failed = 0;
  const worker = async () => {
    while (performance.now() < deadline && done < MAX_REQUESTS) {
      const res = await request(url, { dispatcher, method: opts.method, headers: opts.headers, body: opts.body });
      await res.body.dump();
      if (res.statusCode >= 300) failed++;
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const secs = (performance.now() - t0) / 1000;
  console.log(
    `${name.padEnd(20)} ${Math.round(done / secs)
      .toString()
      .padStart(7)} req/s  (${done} requests in ${secs.toFixed(1)} s, ${failed} non-2xx)`,
  );
}

const ref = await startReference();
try {
  const { workspaceId } = await control(ref.baseUrl, ref.controlToken, 'POST', '/workspaces', { credits: 1e12 });
  const { userId } = await control(ref.baseUrl, ref.controlToken, 'POST', `/workspaces/${workspaceId}/members`, { role: 'owner' });
  const { secret } = await control(ref.baseUrl, ref.controlToken, 'POST', `/workspaces/${workspaceId}/keys`, { userId, scopes: ['admin', 'graph:read'] });
  const dispatcher = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const auth = { authorization: `Bearer ${secret}` };
  await measure('GET /me', dispatcher, `${ref.baseUrl}/api/v1/me`, { method: 'GET', headers: auth });
  const body = JSON.stringify({ name: 'Bench', moduleKey: 'customers', entityKinds: ['account'], valueType: 'enum', enumValues: [{ label: 'A' }, { label: 'B' }], reason: 'bench' });
  await measure('POST /definitions', dispatcher, `${ref.baseUrl}/api/v1/definitions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
  await dispatcher.close();
} finally {
  await ref.close();
}
