/**
 * A latency-injecting HTTP proxy for the benchmark (`wgc bench --latency MS`): it stands in
 * front of a served reference and holds every request `oneWayMs` before forwarding it and every
 * response `oneWayMs` before returning it, so a run sees a target 2 × oneWayMs of round trip
 * away, as a staging server in another region would be. Loopback only; bodies are buffered
 * (they are small), connections kept alive on both sides.
 */
import { createServer, request as httpRequest, Agent, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LatencyProxy {
  /** e.g. http://127.0.0.1:4011 (same paths as the target). */
  origin: string;
  /** Requests forwarded so far. */
  readonly forwarded: number;
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/** Starts a proxy to `target` (an origin such as http://127.0.0.1:4010) adding `oneWayMs` each way. */
export async function startLatencyProxy(target: string, oneWayMs: number): Promise<LatencyProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let forwarded = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        await sleep(oneWayMs);
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get forwarded() {
      return forwarded;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
