/**
 * The latency-injecting proxies of the benchmark (`wgc bench --latency MS`): each stands in front
 * of a served reference so that a run sees a target 2 × oneWayMs of round trip away, as a staging
 * server in another region would be. Loopback only.
 *
 * - Without a rate limit it delays bytes, as a network does: every chunk read from either side is
 *   written to the other `oneWayMs` later, in order, one upstream connection per client
 *   connection. It never parses HTTP, so its own CPU stays far below the run's: on a 2-core
 *   machine the HTTP proxy below took as much CPU as the reference it stood in front of
 *   (measured in docs/benchmark.md), CPU a real network does not take from the run.
 * - With `rateLimit` it is an HTTP proxy that is also a staging gateway's rate limit: it holds
 *   every request `oneWayMs` before forwarding it and every response `oneWayMs` before returning
 *   it, and past `requests` API calls (paths under /api/) in any `windowMs` (a sliding window of
 *   the calls it let through), a call is answered 429 TOO_MANY_REQUESTS in part 7's envelope
 *   with a Retry-After in whole seconds until a call may pass, and is not forwarded. The
 *   test-control protocol's calls are never limited. Bodies are buffered (they are small),
 *   connections kept alive on both sides.
 */
import { createServer, request as httpRequest, Agent, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';

export interface LatencyProxy {
  /** e.g. http://127.0.0.1:4011 (same paths as the target). */
  origin: string;
  /** Requests forwarded so far. */
  readonly forwarded: number;
  /** API calls answered 429 by the rate limit so far. */
  readonly limited: number;
  close(): Promise<void>;
}

/** Starts `server` on an ephemeral port of 127.0.0.1; its origin. */
async function listenOnLoopback(server: NetServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Resolves once `server` has closed. */
const closed = (server: NetServer): Promise<void> => new Promise<void>((resolve) => server.close(() => resolve()));

const sleep = (ms: number): Promise<void> => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/** A rate limit of `requests` API calls in any `windowMs`. */
export interface RateLimit {
  requests: number;
  windowMs: number;
}

/** Starts a proxy to `target` (an origin such as http://127.0.0.1:4010) adding `oneWayMs` each way, and limiting the API's rate when asked. */
export async function startLatencyProxy(target: string, oneWayMs: number, opts: { rateLimit?: RateLimit } = {}): Promise<LatencyProxy> {
  return opts.rateLimit ? startGateway(target, oneWayMs, opts.rateLimit) : startDelayLine(target, oneWayMs);
}

/**
 * The byte-delaying proxy. `forwarded` counts requests without parsing them: a connection's
 * first chunk toward the target after an answer (or its first ever) starts a request, since a
 * client sends its next request on a connection only once the answer to the last has come.
 */
async function startDelayLine(target: string, oneWayMs: number): Promise<LatencyProxy> {
  const upstream = new URL(target);
  let forwarded = 0;
  const sockets = new Set<Socket>();
  /** Writes `chunk` to `to` oneWayMs from now; timers of one delay fire in the order they were set. */
  const later = (to: Socket, chunk: Buffer): void => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, oneWayMs);
  };
  const server = createTcpServer((client) => {
    const up = connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, up]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.once('close', () => sockets.delete(s));
    }
    let answered = true;
    client.on('data', (chunk: Buffer) => {
      if (answered) forwarded++;
      answered = false;
      later(up, chunk);
    });
    up.on('data', (chunk: Buffer) => {
      answered = true;
      later(client, chunk);
    });
    // An end or a failure on one side reaches the other after the data sent before it.
    const pair = (from: Socket, to: Socket): void => {
      from.once('end', () => setTimeout(() => to.end(), oneWayMs));
      from.once('error', () => setTimeout(() => to.destroy(), oneWayMs));
      from.once('close', () => setTimeout(() => to.destroy(), oneWayMs));
    };
    pair(client, up);
    pair(up, client);
  });
  return {
    origin: await listenOnLoopback(server),
    get forwarded() {
      return forwarded;
    },
    limited: 0,
    async close() {
      for (const s of sockets) s.destroy();
      await closed(server);
    },
  };
}

/** The HTTP proxy with a rate limit (see the file's comment). */
async function startGateway(target: string, oneWayMs: number, rateLimit: RateLimit): Promise<LatencyProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let forwarded = 0;
  let limited = 0;
  const passed: number[] = [];
  /** Whole seconds until an API call may pass, or 0 when this one may (and is counted). */
  const admit = (now: number): number => {
    while (passed.length > 0 && passed[0]! <= now - rateLimit.windowMs) passed.shift();
    if (passed.length < rateLimit.requests) {
      passed.push(now);
      return 0;
    }
    return Math.max(1, Math.ceil((passed[passed.length - rateLimit.requests]! + rateLimit.windowMs - now) / 1000));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        await sleep(oneWayMs);
        const wait = req.url?.startsWith('/api/') ? admit(Date.now()) : 0;
        if (wait > 0) {
          limited++;
          await sleep(oneWayMs);
          const body = JSON.stringify({ defined: true, code: 'TOO_MANY_REQUESTS', status: 429, message: 'Rate limit exceeded' });
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(wait) });
          res.end(body);
          return;
        }
        forwarded++;
        const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
        const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (up) => {
          const body: Buffer[] = [];
          up.on('data', (c: Buffer) => body.push(c));
          up.on('end', () => {
            void sleep(oneWayMs).then(() => {
              res.writeHead(up.statusCode ?? 502, up.headers);
              res.end(Buffer.concat(body));
            });
          });
        });
        out.on('error', (e) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`latency proxy: ${e.message}`);
        });
        out.end(Buffer.concat(chunks));
      })();
    });
  });
  return {
    origin: await listenOnLoopback(server),
    get forwarded() {
      return forwarded;
    },
    get limited() {
      return limited;
    },
    async close() {
      server.closeAllConnections();
      await closed(server);
      agent.destroy();
    },
  };
}
