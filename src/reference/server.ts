/**
 * The request pipeline of the reference target. For an API call, in this order:
 * authenticate (401/403) → rate limit (429) → route (404) → static scopes and roles (403) →
 * capability (503) → Idempotency-Key syntax (400) → query and body (400) → body-dependent
 * permissions (403/503) → idempotent replay or conflict (409) → handler → store reply →
 * bill. Everything after the body is read runs in one synchronous turn.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, requireRole, requireScopes, type Principal } from './auth.ts';
import { charge } from './billing.ts';
import { Control } from './control.ts';
import { ApiError, envelope, type ErrorEnvelope } from './errors.ts';
import type { Executor } from './executor.ts';
import type { FaultSet } from './faults.ts';
import { parseJsonObject, readBody, sendJson } from './http.ts';
import { fingerprint, idempotencyKeyOf, lookup, remember } from './idempotency.ts';
import { parseQuery } from './query.ts';
import { admit } from './ratelimit.ts';
import type { Ctx, Route } from './route.ts';
import { match } from './router.ts';
import type { Store } from './store.ts';

const API_PREFIX = '/api/v1';
const CONTROL_PREFIX = '/__control/v1';

export class Server {
  private readonly control: Control;

  constructor(
    private readonly store: Store,
    private readonly faults: FaultSet,
    private readonly executor: Executor,
    controlToken: string,
  ) {
    this.control = new Control(store, executor, controlToken);
  }

  /** The node:http request listener. Never lets an error escape or leave a request unanswered. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    this.dispatch(req, res).catch((e: unknown) => {
      // A bug, never an input: still answer with the envelope rather than crash.
      process.emitWarning(`reference target: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      req.resume();
      this.sendError(res, new ApiError(500));
    });
  };

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const rawQuery = q < 0 ? '' : url.slice(q + 1);
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) return this.control.handle(req, res, path.slice(CONTROL_PREFIX.length));
    if (path.startsWith(`${API_PREFIX}/`)) return this.api(req, res, path.slice(API_PREFIX.length), rawQuery);
    req.resume();
    this.sendError(res, new ApiError(404, `No such endpoint: ${path.slice(0, 200)}`));
  }

  private sendError(res: ServerResponse, e: ApiError, text?: string): void {
    sendJson(res, e.status, text ?? this.errorText(e), { ...e.headers });
  }

  private errorText(e: ApiError): string {
    const body: Partial<ErrorEnvelope> = envelope(e.status, e.message, e.data);
    if (this.faults.has('errors-without-defined')) delete body.defined;
    return JSON.stringify(body);
  }

  private async api(req: IncomingMessage, res: ServerResponse, path: string, rawQuery: string): Promise<void> {
    let p: Principal;
    let route: Route;
    let params: Record<string, string>;
    let idemKey: string | undefined;
    const method = req.method ?? 'GET';
    try {
      p = authenticate(this.store, req.headers, this.faults);
      admit(p.ws, Date.now());
      const m = match(method, path);
      if (!m.route) throw new ApiError(404, m.methodMismatch ? `${method} is not supported on ${path.slice(0, 200)}` : `No such endpoint: ${path.slice(0, 200)}`);
      route = m.route;
      params = m.params;
      if (route.scopes) requireScopes(p, route.scopes, this.faults);
      if (route.roles) requireRole(p, route.roles, `${method} ${route.pattern}`);
      if (route.capability && !p.ws.capabilities[route.capability]) throw new ApiError(503, `The ${route.capability} capability is switched off for this workspace`);
      if (route.idempotent) idemKey = idempotencyKeyOf(req.headers['idempotency-key']);
    } catch (e) {
      req.resume();
      return this.sendError(res, asApiError(e));
    }

    let body: Record<string, unknown> | undefined;
    if (route.body) {
      const read = await readBody(req);
      if (read.kind === 'aborted') return;
      if (read.kind === 'too-large') {
        return this.sendError(res, new ApiError(400, 'The body is larger than 1 MiB', undefined, { connection: 'close' }));
      }
      try {
        body = parseJsonObject(read.bytes, req.headers['content-type']) ?? {};
      } catch (e) {
        return this.sendError(res, asApiError(e));
      }
    } else req.resume();

    // From here on everything is synchronous: no other request can interleave.
    const ws = p.ws;
    const ledgerPath = API_PREFIX + path;
    let fp = '';
    let inHandler = false;
    try {
      const ctx: Ctx = { store: this.store, p, ws, params, query: parseQuery(rawQuery), body, faults: this.faults, scheduler: this.executor };
      route.authorize?.(ctx);
      if (idemKey !== undefined) {
        fp = fingerprint(method, path, body ?? null);
        const stored = lookup(ws, p.member.userId, idemKey, fp);
        if (stored) {
          if (this.faults.has('replays-billed')) charge(ws, { method, path: ledgerPath, status: stored.status, credits: 1, surface: route.surface });
          return sendJson(res, stored.status, stored.body, { 'idempotent-replayed': 'true' });
        }
      }
      inHandler = true;
      const reply = route.handle(ctx);
      const text = JSON.stringify(reply.body);
      if (idemKey !== undefined) remember(ws, p.member.userId, idemKey, { fingerprint: fp, status: reply.status, body: text });
      if (route.billable && reply.status >= 200 && reply.status < 300) {
        charge(ws, { method, path: ledgerPath, status: reply.status, credits: reply.credits ?? 1, surface: reply.surface ?? route.surface });
      }
      sendJson(res, reply.status, text);
    } catch (e) {
      const err = asApiError(e);
      const text = this.errorText(err);
      if (idemKey !== undefined && inHandler && err.status < 500 && this.faults.has('bad-request-still-stores')) {
        remember(ws, p.member.userId, idemKey, { fingerprint: fp, status: err.status, body: text });
      }
      this.sendError(res, err, text);
    }
  }
}

/** ApiErrors pass through; anything else is a bug and becomes a 500 envelope (logged). */
function asApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  process.emitWarning(`reference target: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return new ApiError(500);
}
