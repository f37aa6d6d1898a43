/**
 * The request pipeline of the reference target. For an API call, in this order:
 * authenticate (401/403) → rate limit (429) → route (404; a variant may route first, see
 * Choices.routeBeforeKey) → static scopes and roles (403) →
 * capability (503) → Idempotency-Key syntax (400) → body (400) → body-dependent
 * permissions (403/503) → idempotent replay or conflict (409) → handler → store reply →
 * bill. Everything after the body is read runs in one synchronous turn, which is what makes
 * idempotency race-free.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, requireRole, requireScopes, type Principal } from './auth.ts';
import { charge } from './billing.ts';
import type { Choices } from './choices.ts';
import { Control } from './control.ts';
import { create as createDefinition } from './definitions.ts';
import { ApiError, capabilityOff, InvalidRequest, type ErrorEnvelope } from './errors.ts';
import type { Executor } from './executor.ts';
import { BILLED_ERRORS, BILLED_FREE_ROUTES, forgets, relaxFor, type FaultSet } from './faults.ts';
import { countCall, forgotten, forgottenAfterPoll, noteStored, notePoll, writeCredits } from './sequence-faults.ts';
import { isFormBody, parseFormAsJson, parseJsonObject, readBody, sendJson } from './http.ts';
import { fingerprint, idempotencyKeyOf, lookup, remember } from './idempotency.ts';
import type { Workspace } from './model.ts';
import { parseQuery, type Query } from './query.ts';
import { admit } from './ratelimit.ts';
import type { Ctx, Route } from './route.ts';
import { match } from './router.ts';
import type { Store } from './store.ts';

const CONTROL_PREFIX = '/__control/v1';

export class Server {
  private readonly control: Control;
  private readonly apiPrefix: string;
  private readonly choices: Choices;
  /** Idempotency slots being processed (only with a variant's in-flight delay). */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly faults: FaultSet,
    private readonly executor: Executor,
    controlToken: string,
  ) {
    this.control = new Control(store, executor, faults, controlToken);
    this.apiPrefix = faults.has('api-prefix-moved') ? '/api/v1beta' : '/api/v1';
    this.choices = store.choices;
  }

  /** The node:http request listener. Never lets an error escape or leave a request unanswered. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    // Stryker disable next-line BlockStatement: dispatch answers every request itself; nothing escapes it in a run, the catch is a last resort
    this.dispatch(req, res).catch((e: unknown) => {
      req.resume();
      this.sendError(res, this.refusal(e));
    });
  };

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Stryker disable next-line StringLiteral: node always sets a request's url
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    // Stryker disable next-line EqualityOperator: a request target always starts with '/', so q is never 0
    const path = q < 0 ? url : url.slice(0, q);
    // Stryker disable next-line EqualityOperator: as the path's (q is never 0)
    const rawQuery = q < 0 ? '' : url.slice(q + 1);
    // Stryker disable next-line ConditionalExpression: the control client always asks below the prefix (GET {control_url}/ included), never for the bare prefix; the control protocol's routing is the harness's interface, tested by test/reference/control.test.ts
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) return this.control.handle(req, res, path.slice(CONTROL_PREFIX.length));
    // Stryker disable next-line ConditionalExpression,StringLiteral: a path outside the prefix sent to the router matches no route there either: a 4xx with the envelope both ways (ERR-003, VER-001)
    if (path.startsWith(`${this.apiPrefix}/`)) return this.api(req, res, path.slice(this.apiPrefix.length), rawQuery);
    req.resume();
    this.sendError(res, new ApiError(404, `No such endpoint: ${path.slice(0, 200)}`));
  }

  private errorText(e: ApiError): string {
    const body: Partial<ErrorEnvelope> = this.choices.layout.error(e);
    if (this.faults.has('errors-without-defined')) delete body.defined;
    if (this.faults.has('errors-without-message')) delete body.message;
    if (this.faults.has('errors-code-lowercase')) body.code = body.code!.toLowerCase();
    return JSON.stringify(body);
  }

  private sendError(res: ServerResponse, e: ApiError, text?: string): void {
    const plain = (e.status === 404 && this.faults.has('unknown-route-plain-text') && e.message.startsWith('No such endpoint')) || (e.status === 429 && this.faults.has('rate-limit-plain-text'));
    // Stryker disable next-line ConditionalExpression: plain holds only under named faults (unknown-route-plain-text, rate-limit-plain-text)
    if (plain) {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(e.status, { 'content-type': 'text/plain; charset=utf-8', ...e.headers });
      res.end(e.message);
      return;
    }
    if (e.data?.reason === 'syntax' && this.faults.has('malformed-json-422-defined')) {
      return sendJson(res, 422, JSON.stringify({ defined: true, code: 'UNPROCESSABLE_ENTITY', status: 422, message: e.message }));
    }
    if (e instanceof InvalidRequest && e.data?.reason !== 'syntax' && this.faults.has('invalid-body-422-defined')) {
      return sendJson(res, 422, JSON.stringify({ defined: true, code: 'UNPROCESSABLE_ENTITY', status: 422, message: e.message }));
    }
    // Stryker disable next-line ObjectLiteral: a refusal's headers (Retry-After, Connection) are the server's own: the document names none
    sendJson(res, e.status, text ?? this.errorText(e), { ...e.headers });
  }

  /** What a throw is answered with: an invalid request with the variant's status (400 or 422). */
  private refusal(e: unknown): ApiError {
    const err = asApiError(e);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: 400 or 422 for an invalid request are both the document's readings (a variant answers 422)
    return err instanceof InvalidRequest && this.choices.status.invalid !== 400 ? err.as(this.choices.status.invalid) : err;
  }

  /** Refuses a call: bills it only under a named fault, then answers with the envelope. */
  private fail(res: ServerResponse, e: ApiError, ws: Workspace | undefined, method: string, ledgerPath: string, surface: string, text?: string): void {
    const billed = this.faults.names.some((n) => BILLED_ERRORS[n] === e.status) || (e.status !== 401 && forgets(this.faults, 'free-refusals', surface));
    // Stryker disable next-line ConditionalExpression: billed is true only under named faults
    if (ws && billed) this.charge(ws, { method, path: ledgerPath, status: e.status, credits: 1, surface });
    this.sendError(res, e, text);
  }

  /** Records a charge under the variant's name for its surface (after the variant's ledger lag). */
  private charge(ws: Workspace, c: Parameters<typeof charge>[1]): void {
    const entry = { ...c, surface: this.faults.has('ledger-surface-constant') ? 'api' : this.choices.ledgerSurface(c.surface) };
    // Stryker disable next-line all: when a charge shows in the ledger is not shown; only a variant's lag (lenient) makes this true
    if (this.choices.ledgerLagMs > 0) this.executor.later(() => charge(ws, entry), this.choices.ledgerLagMs);
    else charge(ws, entry);
  }

  /** The refusal of a path no route matches: 404, or the variant's status for a known path with another method. */
  private noRoute(methodMismatch: boolean, method: string, path: string): ApiError {
    // Stryker disable next-line BooleanLiteral,ConditionalExpression: a known path with another method and an unknown path are both refused with a 4xx and the envelope; which status for which is not shown (7 rule 4)
    if (!methodMismatch) return new ApiError(404, `No such endpoint: ${path.slice(0, 200)}`);
    return new ApiError(this.choices.status.methodMismatch, `${method} is not supported on ${path.slice(0, 200)}`);
  }

  // Stryker disable all: the workspace of a 401 is used only to bill it under a named fault (inert with no fault on)
  /** The workspace an unauthenticated call's key belongs to (only for the unauthorized-billed fault). */
  private keyWorkspace(req: IncomingMessage): Workspace | undefined {
    const h = req.headers.authorization ?? '';
    const secret = /^Bearer\s+(\S+)/i.exec(h)?.[1] ?? (req.headers['x-api-key'] as string | undefined);
    const key = secret ? this.store.keysBySecret.get(secret) : undefined;
    return key ? this.store.workspaces.get(key.workspaceId) : undefined;
  }
  // Stryker restore all

  private async api(req: IncomingMessage, res: ServerResponse, path: string, rawQuery: string): Promise<void> {
    // Stryker disable next-line StringLiteral: node always sets a request's method
    const method = req.method ?? 'GET';
    const ledgerPath = this.apiPrefix + path;
    let p: Principal | undefined;
    let route: Route | undefined;
    let params: Record<string, string> = {};
    // Stryker disable next-line ArrayDeclaration: assigned before every use
    let query: Query = [];
    let idemKey: string | undefined;
    // Stryker disable next-line all: headers of the server's own are free (only a variant adds any)
    for (const [name, value] of Object.entries(this.choices.responseHeaders?.() ?? {})) res.setHeader(name, value);
    const m = match(method, path, this.choices);
    // Stryker disable next-line all: whether an unknown path is refused before the key is read is open (a variant does so); both are 4xx with the envelope
    if (!m.route && this.choices.routeBeforeKey) {
      // A variant answers unknown paths before looking at the key.
      req.resume();
      // Stryker disable next-line StringLiteral: the surface names a charge only named faults make
      return this.fail(res, this.noRoute(m.methodMismatch, method, path), undefined, method, ledgerPath, 'api');
    }
    try {
      try {
        p = authenticate(this.store, req.headers, this.faults, m.route?.surface);
      } catch (e) {
        const err = this.refusal(e);
        req.resume();
        // Stryker disable next-line all: the workspace of a rejected key matters only when a named fault charges the rejection
        const ws = err.status === 401 ? this.keyWorkspace(req) : undefined;
        // Charged as the route's own call where the route forgets that rejections are free.
        if (ws && err.status === 401 && forgets(this.faults, 'free-unauthorized', m.route?.surface)) this.charge(ws, { method, path: ledgerPath, status: 401, credits: 1, surface: m.route!.surface });
        // Stryker disable next-line StringLiteral: the surface names a charge only named faults make
        return this.fail(res, err, ws, method, ledgerPath, 'api:unauthorized');
      }
      // Refusals from here on are the route's own (its surface), the rate limit's included.
      // Stryker disable next-line LogicalOperator: null or undefined: no route either way
      route = m.route ?? undefined;
      admit(p.ws, Date.now(), this.choices.retryAfter, this.faults);
      if (!m.route) throw this.noRoute(m.methodMismatch, method, path);
      route = m.route;
      params = m.params;
      if (route.scopes && !forgets(this.faults, 'scopes', route.surface)) requireScopes(p, route.scopes, this.faults, route.surface);
      if (route.roles) requireRole(p, route.roles, route.surface, this.faults);
      if (route.capability && !p.ws.capabilities[route.capability] && !forgets(this.faults, 'capability', route.surface)) throw capabilityOff(route.capability, this.faults);
      query = parseQuery(rawQuery);
      // A collection that forgets part 8's continuation: every page starts at the first item.
      if (forgets(this.faults, 'paging', route.surface)) query = query.filter(([k]) => k !== 'cursor');
      // Stryker disable next-line ConditionalExpression: what a route 4.1 does not list does with an Idempotency-Key is not said; the suite sends keys only where 4.1 accepts them
      if (route.idempotent) {
        if (route.surface === 'api:definitions.merge_value' && req.headers['idempotency-key'] !== undefined && this.faults.has('idempotency-key-refused-on-merge')) {
          throw new ApiError(400, 'Idempotency-Key is not accepted here');
        }
        const header = req.headers['idempotency-key'];
        // The fault skips the key's checks on one route only: a rule forgotten on one endpoint.
        const unchecked = (route.surface === 'api:definitions.archive' && this.faults.has('archive-idempotency-key-unchecked')) || forgets(this.faults, 'key-bounds', route.surface);
        idemKey =
          // Stryker disable next-line ConditionalExpression: unchecked holds only under named faults (archive-idempotency-key-unchecked, a forgotten key-bounds rule)
          unchecked && typeof header === 'string' && header !== ''
            ? header
            : // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: an empty Idempotency-Key refused as invalid or read as none are both accepted readings (IDEM-005); the lenient variant reads it as none
              idempotencyKeyOf(header === '' && this.choices.idempotency.emptyKey === 'absent' ? undefined : header, this.faults, relaxFor(this.faults, route.surface)?.bounds);
      }
    } catch (e) {
      const err = this.refusal(e);
      if (err.status === 403 && p && route?.surface === 'api:definitions.create' && this.faults.has('forbidden-create-still-stores')) {
        return this.storeForbiddenCreate(req, res, p, err, ledgerPath);
      }
      req.resume();
      // Stryker disable next-line StringLiteral,OptionalChaining,LogicalOperator: the workspace and surface of a refusal name a charge only named faults make
      return this.fail(res, err, p?.ws, method, ledgerPath, route?.surface ?? 'api');
    }

    let body: Record<string, unknown> | undefined;
    // Stryker disable next-line ConditionalExpression: a route without a body is never sent one by the suite, and an empty body reads as none
    if (route.body) {
      const read = await readBody(req);
      // Stryker disable next-line ConditionalExpression,StringLiteral: an aborted request has no client left to answer
      if (read.kind === 'aborted') return;
      // Stryker disable next-line all: the document sets no body size limit: how the reference refuses a body over 1 MiB is its own
      if (read.kind === 'too-large') {
        // Stryker disable next-line all: the document sets no body size limit: how the reference refuses a body over 1 MiB is its own
        return this.fail(res, new ApiError(this.choices.status.tooLargeBody, 'The body is larger than 1 MiB', undefined, { connection: 'close' }), p.ws, method, ledgerPath, route.surface);
      }
      // Stryker disable BlockStatement: the catch block emptied, a body that cannot be read is left undefined, which every route with a body refuses by its own reading (400, its required fields missing; which fault is answered first and the refusal's message are not shown: 7 rule 4); the try block emptied ignores every body and is killed, disabled with it as a comment cannot reach a catch block alone
      try {
        const { contentTypes, trailingBytes } = this.choices.bodies;
        body =
          this.faults.has('form-bodies-parsed') && isFormBody(req.headers['content-type'])
            ? parseFormAsJson(read.bytes)
            : // Stryker disable next-line all: which content types and trailing bytes a JSON body may carry is open: it switches between choices the document leaves open, each made by a conformant variant (lenient, alternative)
              (parseJsonObject(read.bytes, req.headers['content-type'], contentTypes === 'any', this.choices.status.nonJsonBody, trailingBytes === 'ignore') ?? {});
      } catch (e) {
        return this.fail(res, this.refusal(e), p.ws, method, ledgerPath, route.surface);
      }
      // Stryker restore BlockStatement
    } else req.resume();

    // From here on everything is synchronous: no other request can interleave...
    if (this.faults.has('workspace-from-input')) p = this.workspaceFromInput(req, p, query, body);
    if (forgets(this.faults, 'isolation', route.surface)) p = this.workspaceOfNamedRecord(p, params, query, body);
    const ws = p.ws;
    countCall(this.faults, ws);
    notePoll(this.faults, ws, route.surface);
    const ctx: Ctx = { store: this.store, p, ws, params, query, body, faults: this.faults, relax: relaxFor(this.faults, route.surface), scheduler: this.executor };
    // Stryker disable next-line StringLiteral: assigned before every use (fingerprints exist only for keyed requests)
    let fp = '';
    let inHandler = false;
    // Who shares an Idempotency-Key: the key holder (default) or the whole workspace.
    // Stryker disable next-line all: whether a key is remembered per member or per workspace is open: it switches between choices the document leaves open, each made by a conformant variant (lenient, alternative)
    const holder = this.choices.idempotency.scope === 'member' ? p.member.userId : '*';
    // Stryker disable next-line StringLiteral: the slot is read only under the named fault key-after-refusal-not-stored
    const slot = `${ws.id}\u0000${p.member.userId}\u0000${idemKey}`;
    try {
      route.authorize?.(ctx);
      if (idemKey !== undefined) {
        fp = fingerprint(method, path, body ?? null, this.faults);
        const found = lookup(ws, holder, idemKey, fp, this.faults, route.surface);
        const stored = found && (forgotten(this.faults, ws, found) || forgottenAfterPoll(this.faults, ws, route.surface)) ? undefined : found;
        if (stored && !forgets(this.faults, 'replay', route.surface)) {
          if (this.faults.has('replay-re-executes')) route.handle(ctx);
          if (this.faults.has('replays-billed') || forgets(this.faults, 'free-replay', route.surface))
            this.charge(ws, { method, path: ledgerPath, status: stored.status, credits: 1, surface: route.surface });
          // Stryker disable next-line ObjectLiteral: a replay's headers are the server's own: IDEM-002 compares the stored status and body, and the document names no header of an answer
          return sendJson(res, this.faults.has('replay-status-200') ? 200 : stored.status, stored.body, { ...stored.headers, ...this.choices.idempotency.replayHeaders });
        }
        // ...except under this fault, which lets concurrent same-key requests interleave here.
        if (this.faults.has('idempotency-race')) await new Promise<void>((r) => setTimeout(r, 50));
        // A variant takes its time over keyed requests: the same key meanwhile gets 409.
        const delay = this.choices.idempotency.inFlightMs;
        // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: the default takes no time over keyed requests; only a variant's delay (alternative) makes this true
        if (delay > 0) {
          // Stryker disable all: reached only with a variant's delay over keyed requests (alternative), whose in-flight 409 the document leaves open
          const flight = `${ws.id}\u0000${holder}\u0000${idemKey}`;
          if (this.inFlight.has(flight)) throw new ApiError(409, 'A request with this Idempotency-Key is still being processed');
          this.inFlight.add(flight);
          try {
            await new Promise<void>((r) => setTimeout(r, delay));
          } finally {
            // Released when the reply below is stored (synchronously after the wait).
            queueMicrotask(() => this.inFlight.delete(flight));
          }
        }
      }
      // Stryker restore all
      // Stryker disable next-line BooleanLiteral: read only where a variant stores refusals (alternative) or under the named fault key-after-refusal-not-stored; refusals from the handler are stored nowhere in the default
      inHandler = true;
      const reply = route.handle(ctx);
      const text = JSON.stringify(reply.body);
      // Stryker disable next-line ConditionalExpression,LogicalOperator: storing an answer under no key is unobservable (no request can name it: an absent key is not the text "undefined" the suite never sends)
      if (idemKey !== undefined && !(this.faults.has('key-after-refusal-not-stored') && this.store.refusedIdempotencyKeys.has(slot))) {
        // Stryker disable next-line ObjectLiteral: only a compute run's start answers with headers (a Location, in two variants), and POST /compute/runs takes no Idempotency-Key (4.1), so no stored answer has any
        const stored = { fingerprint: fp, status: reply.status, body: text, ...(reply.headers ? { headers: reply.headers } : {}) };
        remember(ws, holder, idemKey, stored);
        noteStored(this.faults, ws, stored);
      }
      // A route that forgets its price: a billed one charges nothing, a free one charges a credit.
      const billable = (route.billable || this.faults.names.some((n) => BILLED_FREE_ROUTES[n]?.includes(route.surface))) !== forgets(this.faults, 'price', route.surface);
      // Stryker disable next-line EqualityOperator,ConditionalExpression: every reply a handler returns is 2xx (refusals are thrown), so the status bounds always hold
      if (billable && reply.status >= 200 && reply.status < 300) {
        // Stryker disable next-line ArithmeticOperator: the factor is 1 but under the named fault writes-cost-two: × and ÷ agree
        const base = (reply.credits ?? 1) * (route.surface === 'api:definitions.create' && this.faults.has('writes-cost-two') ? 2 : 1);
        // Stryker disable next-line all: writeCredits changes a price only under a named sequence fault (close-writes-charged-twice)
        const credits = method !== 'GET' && route.surface.startsWith('api:definitions.') ? writeCredits(this.faults, ws, base, route.surface !== 'api:definitions.create') : base;
        this.charge(ws, { method, path: ledgerPath, status: reply.status, credits, surface: reply.surface ?? route.surface });
        // Stryker disable next-line ObjectLiteral: a fee charged on top with no fields breaks the alternative's preview with a 500 and no charge, which the suite cannot tell from a preview refused for a form it cannot know (4.8 shows the preview's arguments in part; previews are judged where one succeeds)
        for (const extra of reply.extraCharges ?? []) this.charge(ws, { method, path: ledgerPath, status: reply.status, ...extra });
      }
      sendJson(res, reply.status, text, reply.headers);
    } catch (e) {
      const err = this.refusal(e);
      // Stryker disable next-line all: the refused keys are read only under a named fault (key-after-refusal-not-stored)
      if (idemKey !== undefined && inHandler && err.status < 500) this.store.refusedIdempotencyKeys.add(slot);
      const text = this.errorText(err);
      if (this.faults.has('conflict-overwrites-key') && idemKey !== undefined && !inHandler && err.status === 409) remember(ws, holder, idemKey, { fingerprint: fp, status: err.status, body: text });
      // A variant may store the handler's refusals under the key too; they are then replayed.
      // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: whether a refusal is stored under its key (and replayed) is open: both readings are accepted (IDEM-005's interpretation); a variant stores them
      if (idemKey !== undefined && inHandler && err.status < 500 && this.choices.idempotency.storeRefusals) {
        // Stryker disable next-line ObjectLiteral: as the line above (a variant's choice)
        remember(ws, holder, idemKey, { fingerprint: fp, status: err.status, body: text, ...(err.headers ? { headers: err.headers } : {}) });
      }
      this.fail(res, err, ws, method, ledgerPath, route.surface, text);
    }
  }

  // Stryker disable all: reached only under the named fault forbidden-create-still-stores (inert with no fault on)
  /** Under forbidden-create-still-stores: a create refused with 403 is still carried out. */
  private async storeForbiddenCreate(req: IncomingMessage, res: ServerResponse, p: Principal, err: ApiError, ledgerPath: string): Promise<void> {
    const read = await readBody(req);
    if (read.kind === 'ok') {
      try {
        const body = parseJsonObject(read.bytes, req.headers['content-type']) ?? {};
        createDefinition({ store: this.store, p, ws: p.ws, params: {}, query: [], body, faults: this.faults, relax: undefined, scheduler: this.executor });
      } catch {
        // The refusal stands whatever the body was.
      }
    }
    this.fail(res, err, p.ws, 'POST', ledgerPath, 'api:definitions.create');
  }
  // Stryker restore all

  // Stryker disable all: reached only under a rule-cells isolation fault (inert with no fault on)
  /**
   * The workspace holding a record the request names (a path id, a query value, or an id among
   * the body's arguments), else the caller's: a route that looks records up without the
   * workspace filter (rule-cells fault `forgets:isolation@<surface>`).
   */
  private workspaceOfNamedRecord(p: Principal, params: Record<string, string>, query: Query, body: Record<string, unknown> | undefined): Principal {
    const args = [...Object.values(body ?? {}), ...(body && typeof body.arguments === 'object' && body.arguments !== null ? Object.values(body.arguments as Record<string, unknown>) : [])];
    const changes = args.flatMap((v) => (Array.isArray(v) ? v.flatMap((c) => (typeof c === 'object' && c !== null ? Object.values(c as Record<string, unknown>) : [c])) : [v]));
    const named = [...Object.values(params), ...query.map(([, v]) => v), ...changes].filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase());
    const holds = (w: Workspace, id: string): boolean =>
      w.definitions.has(id) ||
      w.operations.has(id) ||
      w.computeRuns.has(id) ||
      w.accounts.has(id) ||
      w.people.has(id) ||
      w.accountPeople.has(id) ||
      [...w.traces.keys()].some((k) => k.endsWith(`:${id}`));
    for (const id of named) {
      if (holds(p.ws, id)) continue;
      const ws = [...this.store.workspaces.values()].find((w) => holds(w, id));
      if (ws) return { ...p, ws };
    }
    return p;
  }
  // Stryker restore all

  // Stryker disable all: reached only under the named fault workspace-from-input (inert with no fault on)
  /** Under workspace-from-input: a workspace named in a header, the query or the body replaces the key's. */
  private workspaceFromInput(req: IncomingMessage, p: Principal, query: Query, body: Record<string, unknown> | undefined): Principal {
    const named = [
      req.headers['x-workspace-id'],
      req.headers['x-workspace'],
      ...query.filter(([k]) => ['workspaceId', 'workspace_id', 'workspace'].includes(k)).map(([, v]) => v),
      body?.workspace_id,
      body?.workspaceId,
    ];
    for (const id of named) {
      const ws = typeof id === 'string' ? this.store.workspaces.get(id) : undefined;
      if (ws) return { ...p, ws };
    }
    return p;
  }
  // Stryker restore all
}

/** ApiErrors pass through; anything else is a bug and becomes a 500 envelope (logged). */
function asApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  process.emitWarning(`reference target: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return new ApiError(500);
}
