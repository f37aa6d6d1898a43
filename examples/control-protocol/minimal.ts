/**
 * A minimal test-control protocol (version 1, shared/control-protocol.md) adapting a service's
 * own domain API, here the toy in toy-service.ts. This is the part a reimplementation writes
 * to be certified on every clause: about one line per endpoint, each calling something the
 * service already has. Only node:http; copy it and replace ToyService with your internals.
 *
 * Run it:  npx tsx examples/control-protocol/minimal.ts [port]
 * then:    WGC_CONTROL_TOKEN=<printed token> npx wgc run --base-url <printed API URL> \
 *            --control-url <printed control URL>
 *
 * Serve it in staging builds only (a build flag or an environment switch that production
 * never sets): it creates keys and reads the usage ledger, so it is an operator's backdoor.
 */
import { timingSafeEqual, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { CAPABILITIES, DomainError, ROLES, SCOPES, ToyService, type Role } from './toy-service.ts';

/** The control base path: its own URL, never under /api/v1. */
export const CONTROL_PATH = '/__control/v1';

/** A bad request: 400 with the message. */
class BadRequest extends Error {}

type Body = Record<string, unknown>;
type Handler = (svc: ToyService, params: string[], body: Body) => { status: number; body?: unknown };

const role = (v: unknown): Role => {
  if (typeof v !== 'string' || !(ROLES as readonly string[]).includes(v)) throw new BadRequest(`role must be one of ${ROLES.join(', ')}`);
  return v as Role;
};
const scopes = (v: unknown): string[] => {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' && (SCOPES as readonly string[]).includes(s))) throw new BadRequest(`scopes must be a list of ${SCOPES.join(', ')}`);
  return v as string[];
};
const optionalString = (v: unknown, name: string): string | undefined => {
  if (v === undefined || typeof v === 'string') return v;
  throw new BadRequest(`${name} must be a string`);
};
const ok = (status: number, body?: unknown) => ({ status, body });
/** Runs a change that answers 204 No Content. */
const noContent = (change: () => void) => (change(), ok(204));

/** Every endpoint of the protocol: method, path pattern (ids captured), handler. */
const ROUTES: [string, RegExp, Handler][] = [
  ['GET', /^\/$/, () => ok(200, { protocol: 'wg-control', version: 1 })],
  [
    'POST',
    /^\/workspaces$/,
    (s, _, b) => {
      const credits = b.credits ?? 1_000_000;
      if (typeof credits !== 'number' || !Number.isFinite(credits)) throw new BadRequest('credits must be a number');
      return ok(201, { workspaceId: s.createWorkspace(credits) });
    },
  ],
  ['DELETE', /^\/workspaces\/([^/]+)$/, (s, [ws]) => noContent(() => s.deleteWorkspace(ws!))],
  ['POST', /^\/workspaces\/([^/]+)\/pause$/, (s, [ws]) => noContent(() => s.setApiAccess(ws!, false))],
  ['POST', /^\/workspaces\/([^/]+)\/resume$/, (s, [ws]) => noContent(() => s.setApiAccess(ws!, true))],
  ['POST', /^\/workspaces\/([^/]+)\/members$/, (s, [ws], b) => ok(201, { userId: s.addMember(ws!, role(b.role)) })],
  ['PATCH', /^\/workspaces\/([^/]+)\/members\/([^/]+)$/, (s, [ws, user], b) => noContent(() => s.setRole(ws!, user!, role(b.role)))],
  ['DELETE', /^\/workspaces\/([^/]+)\/members\/([^/]+)$/, (s, [ws, user]) => noContent(() => s.removeMember(ws!, user!))],
  [
    'POST',
    /^\/workspaces\/([^/]+)\/keys$/,
    (s, [ws], b) => {
      if (typeof b.userId !== 'string') throw new BadRequest('userId must be a string');
      return ok(201, s.issueKey(ws!, b.userId, scopes(b.scopes)));
    },
  ],
  ['PUT', /^\/keys\/([^/]+)\/scopes$/, (s, [key], b) => noContent(() => s.replaceScopes(key!, scopes(b.scopes)))],
  ['POST', /^\/keys\/([^/]+)\/revoke$/, (s, [key]) => noContent(() => s.setKeyState(key!, 'revoked'))],
  ['POST', /^\/keys\/([^/]+)\/disable$/, (s, [key]) => noContent(() => s.setKeyState(key!, 'disabled'))],
  ['POST', /^\/keys\/([^/]+)\/enable$/, (s, [key]) => noContent(() => s.setKeyState(key!, 'enabled'))],
  ['GET', /^\/workspaces\/([^/]+)\/usage$/, (s, [ws]) => ok(200, s.usage(ws!))],
  [
    'PUT',
    /^\/workspaces\/([^/]+)\/rate-limit$/,
    (s, [ws], b) => {
      const rpm = b.requestsPerMinute;
      if (rpm !== null && !(Number.isInteger(rpm) && (rpm as number) > 0)) throw new BadRequest('requestsPerMinute must be a positive integer or null');
      return noContent(() => s.setRateLimit(ws!, rpm as number | null));
    },
  ],
  [
    'PUT',
    /^\/workspaces\/([^/]+)\/capabilities$/,
    (s, [ws], b) => {
      const bad = Object.entries(b).find(([k, v]) => !(CAPABILITIES as readonly string[]).includes(k) || typeof v !== 'boolean');
      if (bad) throw new BadRequest(`unknown capability or non-boolean value: ${bad[0]}`);
      return noContent(() => s.setCapabilities(ws!, b as Record<string, boolean>));
    },
  ],
  ['POST', /^\/workspaces\/([^/]+)\/accounts$/, (s, [ws], b) => ok(201, { accountId: s.addAccount(ws!, optionalString(b.name, 'name'), optionalString(b.domain, 'domain')) })],
  [
    'POST',
    /^\/workspaces\/([^/]+)\/accounts\/([^/]+)\/people$/,
    (s, [ws, account], b) => {
      optionalString(b.name, 'name');
      optionalString(b.title, 'title');
      return ok(201, s.addPerson(ws!, account!));
    },
  ],
];

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readJson(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 64 * 1024) throw new BadRequest('body too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BadRequest('body is not JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('body must be a JSON object');
  return body as Body;
}

/**
 * The protocol as a request handler for `CONTROL_PATH/...`. Returns false for other paths, so
 * it can sit in front of the service's own router. Errors are `{ "error": string }`.
 */
export function controlHandler(svc: ToyService, token: string): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://control.invalid');
    if (url.pathname !== CONTROL_PATH && !url.pathname.startsWith(`${CONTROL_PATH}/`)) return false;
    const send = (status: number, body?: unknown): void => {
      if (body === undefined) res.writeHead(status).end();
      else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !sameToken(auth.slice(7), token)) {
      send(401, { error: 'missing or wrong control token' });
      return true;
    }
    const path = url.pathname.slice(CONTROL_PATH.length) || '/';
    const route = ROUTES.find(([method, pattern]) => method === req.method && pattern.test(path));
    if (!route) {
      send(404, { error: `no control endpoint ${req.method} ${path}` });
      return true;
    }
    try {
      const params = route[1].exec(path)!.slice(1).map(decodeURIComponent);
      const result = route[2](svc, params, await readJson(req));
      send(result.status, result.body);
    } catch (e) {
      if (e instanceof BadRequest) send(400, { error: e.message });
      else if (e instanceof DomainError) send(e.kind === 'notFound' ? 404 : e.kind === 'conflict' ? 409 : 400, { error: e.message });
      else send(500, { error: 'internal error' });
    }
    return true;
  };
}

/** A running toy target: the API and the control protocol on one port. */
export interface ToyTarget {
  baseUrl: string;
  controlUrl: string;
  token: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts the toy service with the control protocol on 127.0.0.1 (port 0: any free port). */
export async function startToyTarget(options: { port?: number; token?: string } = {}): Promise<ToyTarget> {
  const svc = new ToyService();
  const token = options.token ?? randomBytes(24).toString('base64url');
  const control = controlHandler(svc, token);
  const server = createServer((req, res) => {
    void (async () => {
      if (await control(req, res)) return;
      if (svc.handleApi(req, res)) return;
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    controlUrl: `${baseUrl}${CONTROL_PATH}`,
    token,
    server,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const target = await startToyTarget({ port: Number(process.argv[2] ?? 0) });
  process.stdout.write(`API      ${target.baseUrl}/api/v1\ncontrol  ${target.controlUrl}\ntoken    ${target.token}\n`);
}
