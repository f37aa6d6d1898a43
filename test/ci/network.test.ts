/**
 * Corporate networks (issue 19, item 5). A local CONNECT proxy (the only way to reach the
 * *.conformance.test names, which do not resolve here) and a TLS target whose certificate a CA
 * generated for the test signs (openssl CLI), in front of a reference target:
 *
 * - in process, the pool (TargetAgent) tunnels through the proxy it is given, goes direct for
 *   NO_PROXY matches and for loopback, and a redirect to another origin is never followed, so the
 *   key travels only in the tunnel to the target;
 * - end to end, `wgc run` in a child process (NODE_EXTRA_CA_CERTS is read at process start)
 *   honours HTTPS_PROXY, NO_PROXY and the private CA from its environment, and a target that
 *   redirects elsewhere gets no key sent there.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHttpClient } from '../../src/http/client.ts';
import { SecretRegistry } from '../../src/http/redact.ts';
import { TargetAgent } from '../../src/http/transport.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import type { KeyHandle } from '../../src/vocabulary.ts';
import { cleanEnv, runWgc } from './helpers.ts';

const API_HOST = 'api.conformance.test';
const OTHER_HOST = 'other.conformance.test';

/** A CA and a server certificate it signs for API_HOST and OTHER_HOST (openssl CLI), in `dir`. */
function makeCertificates(dir: string): { ca: string; caPath: string; key: string; cert: string } {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    ssl('version');
  } catch {
    throw new Error('this test needs the openssl CLI to generate its CA (apt-get install openssl)');
  }
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=wg-conformance test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  ssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${API_HOST}`);
  writeFileSync(join(dir, 'server.ext'), `subjectAltName=DNS:${API_HOST},DNS:${OTHER_HOST}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { ca: read('ca.pem'), caPath: join(dir, 'ca.pem'), key: read('server.key'), cert: read('server.pem') };
}

/** Listens on 127.0.0.1, an ephemeral port; returns the port. */
async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function stop(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * A CONNECT proxy that resolves *.conformance.test to 127.0.0.1 (and refuses anything else).
 * It records each tunnel's destination and the bytes the client sent through it.
 */
interface TestProxy {
  url: string;
  tunnels: { to: string; sent: string }[];
  /** Requests that arrived as plain forward-proxy requests (absolute URI): expected none. */
  forwarded: string[];
  close(): Promise<void>;
}

async function startProxy(): Promise<TestProxy> {
  const tunnels: TestProxy['tunnels'] = [];
  const forwarded: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    forwarded.push(`${req.method} ${req.url}`);
    res.writeHead(502).end('this proxy only tunnels');
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const to = req.url ?? '';
    const [host, port] = to.split(':') as [string, string];
    const tunnel = { to, sent: head.toString('latin1') };
    tunnels.push(tunnel);
    if (!host.endsWith('.conformance.test')) {
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      client.on('data', (chunk: Buffer) => (tunnel.sent += chunk.toString('latin1')));
      client.pipe(upstream).pipe(client);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    forwarded,
    async close() {
      for (const s of sockets) s.destroy();
      await stop(server);
    },
  };
}

/** A server that records requests (host and path, and the credentials seen) and answers with `handle`. */
interface Recorded {
  host: string;
  path: string;
  credentials: string;
}
function recorder(handle: (req: IncomingMessage, res: ServerResponse) => void): { seen: Recorded[]; handler: (req: IncomingMessage, res: ServerResponse) => void } {
  const seen: Recorded[] = [];
  return {
    seen,
    handler: (req, res) => {
      seen.push({ host: req.headers.host ?? '', path: req.url ?? '', credentials: `${req.headers.authorization ?? ''}${req.headers['x-api-key'] ?? ''}` });
      handle(req, res);
    },
  };
}

/** Answers every request with a 307 to `location` + the path. */
const redirectTo = (location: string) => (req: IncomingMessage, res: ServerResponse) => res.writeHead(307, { location: `${location}${req.url}` }).end();

/** Passes every request on to the reference (a TLS-terminating reverse proxy). */
const forwardTo = (ref: RunningReference) => (req: IncomingMessage, res: ServerResponse) => {
  const target = new URL(ref.baseUrl);
  const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  up.on('error', () => res.writeHead(502).end());
  req.pipe(up);
};

const KEY = 'wgk_network_test_secret_0123456789';
const HANDLE = { name: 'k', secret: KEY, role: 'owner', scopes: [] } as const satisfies KeyHandle;

describe('the pool: proxy, NO_PROXY, loopback and redirects (in process)', () => {
  let proxy: TestProxy;
  let api: Server;
  let other: Server;
  let apiSeen: Recorded[];
  let otherSeen: Recorded[];
  let apiPort: number;
  let otherPort: number;
  beforeAll(async () => {
    proxy = await startProxy();
    const a = recorder((req, res) =>
      req.url?.startsWith('/api/v1/away') ? redirectTo(`http://${OTHER_HOST}:${otherPort}`)(req, res) : res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
    );
    const o = recorder((_req, res) => res.writeHead(200).end('{}'));
    apiSeen = a.seen;
    otherSeen = o.seen;
    api = createHttpServer(a.handler);
    other = createHttpServer(o.handler);
    apiPort = await listen(api);
    otherPort = await listen(other);
  });
  afterAll(async () => {
    await proxy?.close();
    await stop(api);
    await stop(other);
  });

  /** A client of `baseUrl` over a pool with the given proxy settings; plain http is allowed (the names are not loopback). */
  function client(baseUrl: string, proxySettings: ConstructorParameters<typeof TargetAgent>[1]) {
    const dispatcher = new TargetAgent({ connect: { timeout: 5_000 } }, proxySettings);
    const c = createHttpClient({ baseUrl, timeoutMs: 5_000, secrets: new SecretRegistry(), dispatcher, allowInsecureHttp: true, idPrefix: 'net' });
    return { c, close: async () => (await c.close(), await dispatcher.close()) };
  }

  test('through the proxy: a name only the proxy can resolve is reached, in a CONNECT tunnel', async () => {
    const before = proxy.tunnels.length;
    const { c, close } = client(`http://${API_HOST}:${apiPort}`, { httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: '' });
    const ex = await c.send({ method: 'GET', path: '/me', key: HANDLE });
    await close();
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(200);
    expect(proxy.tunnels.slice(before).map((t) => t.to)).toEqual([`${API_HOST}:${apiPort}`]);
    expect(proxy.forwarded).toEqual([]);
    expect(apiSeen.at(-1)).toMatchObject({ host: `${API_HOST}:${apiPort}`, path: '/api/v1/me', credentials: `Bearer ${KEY}` });
  });

  test('NO_PROXY matches go direct (here the name then does not resolve), and so does loopback, always', async () => {
    const before = proxy.tunnels.length;
    const bypassed = client(`http://${API_HOST}:${apiPort}`, { httpProxy: proxy.url, noProxy: 'conformance.test' });
    const ex = await bypassed.c.send({ method: 'GET', path: '/me', key: null });
    await bypassed.close();
    expect(ex.error?.kind).toBe('connection');
    expect(ex.error?.message).toMatch(/ENOTFOUND|EAI_AGAIN/);

    const loopback = client(`http://127.0.0.1:${apiPort}`, { httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: '' });
    const direct = await loopback.c.send({ method: 'GET', path: '/me', key: null });
    await loopback.close();
    expect(direct.response?.status).toBe(200);
    expect(proxy.tunnels.length).toBe(before);
  });

  test('a 307 to another origin is answered, never followed: the key goes through the tunnel to the target only', async () => {
    const before = proxy.tunnels.length;
    const { c, close } = client(`http://${API_HOST}:${apiPort}`, { httpProxy: proxy.url, noProxy: '' });
    const ex = await c.send({ method: 'GET', path: '/away/me', key: HANDLE });
    await close();
    expect(ex.response?.status).toBe(307);
    expect(ex.response?.headers.location).toBe(`http://${OTHER_HOST}:${otherPort}/api/v1/away/me`);
    const tunnels = proxy.tunnels.slice(before);
    expect(tunnels.map((t) => t.to)).toEqual([`${API_HOST}:${apiPort}`]);
    expect(tunnels[0]!.sent).toContain(`authorization: Bearer ${KEY}`);
    expect(otherSeen).toEqual([]);
  });
});

describe('wgc run from a corporate network (child processes)', () => {
  let dir: string;
  let certs: ReturnType<typeof makeCertificates>;
  let ref: RunningReference;
  let proxy: TestProxy;
  let front: Server;
  let frontPort: number;
  let frontSeen: Recorded[];
  let redirecting: Server;
  let redirectingPort: number;
  let redirectingSeen: Recorded[];
  let other: Server;
  let otherSeen: Recorded[];
  let otherPort: number;
  let profile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wgc-network-'));
    certs = makeCertificates(dir);
    ref = await startReference();
    proxy = await startProxy();
    const tls = { key: certs.key, cert: certs.cert };
    const f = recorder(forwardTo(ref));
    frontSeen = f.seen;
    front = createHttpsServer(tls, f.handler);
    frontPort = await listen(front);
    const o = recorder((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    otherSeen = o.seen;
    other = createHttpsServer(tls, o.handler);
    otherPort = await listen(other);
    // Keyless requests get the API's 401, so the preflight goes on to send the key; requests with a key are redirected.
    const away = redirectTo(`https://${OTHER_HOST}:${otherPort}`);
    const r = recorder((req, res) =>
      req.headers.authorization || req.headers['x-api-key']
        ? away(req, res)
        : res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"UNAUTHENTICATED","message":"no key"}}'),
    );
    redirectingSeen = r.seen;
    redirecting = createHttpsServer(tls, r.handler);
    redirectingPort = await listen(redirecting);
    // A key for the redirect case: the preflight sends it with GET /me.
    profile = join(dir, 'profile.json');
    writeFileSync(profile, JSON.stringify({ keys: [{ name: 'owner', env: 'NETWORK_TEST_KEY' }] }));
  });
  afterAll(async () => {
    await proxy?.close();
    for (const s of [front, redirecting, other]) await stop(s);
    await ref?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `wgc run --suite errors` against the TLS front of the reference, with its control protocol. */
  const runThroughFront = (env: Record<string, string>) =>
    runWgc(
      [
        'run',
        '--suite',
        'errors',
        '--seed',
        '1',
        '--out',
        join(dir, `out-${Date.now()}`),
        '--base-url',
        `https://${API_HOST}:${frontPort}`,
        '--control-url',
        `https://${API_HOST}:${frontPort}/__control/v1`,
      ],
      {
        cwd: dir,
        env: cleanEnv({ WGC_CONTROL_TOKEN: ref.controlToken, ...env }),
      },
    );

  test('HTTPS_PROXY and NODE_EXTRA_CA_CERTS: the run reaches the target through the tunnel, trusting the private CA', async () => {
    const before = proxy.tunnels.length;
    const run = await runThroughFront({ HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: certs.caPath });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('CONFORMANT');
    const tunnels = new Set(proxy.tunnels.slice(before).map((t) => t.to));
    expect([...tunnels]).toEqual([`${API_HOST}:${frontPort}`]);
    expect(frontSeen.length).toBeGreaterThan(10);
    expect(proxy.forwarded).toEqual([]);
    expect(run.stdout + run.stderr).not.toContain(ref.controlToken);
  });

  test('without the CA the same run refuses the certificate (exit 2), so the CA is what made it trusted', async () => {
    const run = await runThroughFront({ HTTPS_PROXY: proxy.url });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify the first certificate|SELF_SIGNED|UNABLE_TO_GET_ISSUER_CERT/);
  });

  test('NO_PROXY naming the domain sends the run direct, where the name does not resolve (exit 2, no tunnel)', async () => {
    const before = proxy.tunnels.length;
    const run = await runThroughFront({ HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost,.conformance.test', NODE_EXTRA_CA_CERTS: certs.caPath });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(proxy.tunnels.length).toBe(before);
  });

  test('a target redirecting to another origin: the run stops, and no key is sent there, through the proxy or otherwise', async () => {
    const before = proxy.tunnels.length;
    const run = await runWgc(['run', '--suite', 'errors', '--seed', '1', '--out', join(dir, 'out-redirect'), '--target', profile, '--base-url', `https://${API_HOST}:${redirectingPort}`], {
      cwd: dir,
      env: cleanEnv({ HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: certs.caPath, NETWORK_TEST_KEY: KEY }),
    });
    expect(run.code).toBe(2);
    expect(redirectingSeen.some((r) => r.credentials === `Bearer ${KEY}` || r.credentials === KEY)).toBe(true);
    expect(otherSeen).toEqual([]);
    expect(proxy.tunnels.slice(before).map((t) => t.to)).not.toContain(`${OTHER_HOST}:${otherPort}`);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });
});
