/**
 * The test-control protocol, version 1 (shared/control-protocol.md), at /__control/v1, with its
 * additions (labels: POST and GET /workspaces/{ws}/labels), plus one extension of the
 * reference's own: PUT /workspaces/{ws}/execution {"hold": boolean} keeps submitted operations
 * and compute runs queued until released (to observe revalidation of queued work).
 * Nothing here is billed, rate-limited or written to the usage ledger.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROLES, SCOPES, type Role, type Scope } from '../vocabulary.ts';
import type { CapabilityName } from '../control/types.ts';
import { ApiError } from './errors.ts';
import type { Executor } from './executor.ts';
import { parseJsonObject, readBody, sendEmpty, sendJson } from './http.ts';
import type { FaultSet } from './faults.ts';
import { CAPABILITY_NAMES, type ApiKey, type Workspace } from './model.ts';
import { assignLabel, labelledEntity } from './labels.ts';
import { setLimit } from './ratelimit.ts';
import { createAccount, createPerson } from './records.ts';
import type { Store } from './store.ts';

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Body = Record<string, unknown>;
type Reply = { status: number; body?: unknown };

function workspace(store: Store, id: string): Workspace {
  const ws = store.workspaces.get(id);
  // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
  if (!ws) throw new ControlError(404, `unknown workspace ${id}`);
  return ws;
}

function role(v: unknown): Role {
  // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
  if (typeof v !== 'string' || !(ROLES as readonly string[]).includes(v)) throw new ControlError(400, `role must be one of ${ROLES.join(', ')}`);
  return v as Role;
}

function scopes(v: unknown): Scope[] {
  // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' && (SCOPES as readonly string[]).includes(s))) {
    // Stryker disable next-line StringLiteral: a refusal's message (the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made)
    throw new ControlError(400, `scopes must be an array of ${SCOPES.join(', ')}`);
  }
  return v as Scope[];
}

// Stryker disable all: the cast addition is the test harness's interface (docs/control-protocol-additions.md), not a rule of the API document (see castMember)
/** The `members` of POST /workspaces (the cast addition): each a role and the scopes of its key. */
function castOf(v: unknown): { role: Role; scopes: Scope[] }[] {
  if (!Array.isArray(v) || v.some((m) => typeof m !== 'object' || m === null)) throw new ControlError(400, 'members must be an array of { role, scopes }');
  return v.map((m: Body) => ({ role: role(m.role), scopes: scopes(m.scopes) }));
}
// Stryker restore all

// Stryker disable next-line BlockStatement: the names, domains and titles a check gives the records it makes are its own labels: no check reads them back, and the API document ties them to no field
function optString(b: Body, name: string): string | null {
  const v = b[name];
  // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
  if (v === undefined || v === null) return null;
  // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
  if (typeof v !== 'string' || v.length > 500) throw new ControlError(400, `${name} must be a string of at most 500 characters`);
  return v;
}

/** Handles one control request; `path` is relative to /__control/v1. */
export class Control {
  private readonly token: Buffer;

  constructor(
    private readonly store: Store,
    private readonly executor: Executor,
    private readonly faults: FaultSet,
    token: string,
  ) {
    this.token = Buffer.from(token);
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    try {
      // Stryker disable next-line StringLiteral: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made
      const auth = req.headers.authorization ?? '';
      // Stryker disable next-line Regex,OptionalChaining,MethodExpression,StringLiteral: how loosely the control token's header is read is the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made (it sends exactly "Bearer <token>")
      const given = Buffer.from(/^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() ?? '');
      // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
      if (given.length !== this.token.length || !timingSafeEqual(given, this.token)) throw new ControlError(401, 'a valid control token is required');
      let body: Body = {};
      // Stryker disable next-line ConditionalExpression: a GET or DELETE read as a body too is read as no body (empty): the same request
      if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') {
        const read = await readBody(req);
        // Stryker disable next-line ConditionalExpression,StringLiteral: the suite never abandons a control request half-sent
        if (read.kind === 'aborted') return;
        // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
        if (read.kind === 'too-large') throw new ControlError(400, 'body too large');
        // Stryker disable BlockStatement,StringLiteral: a control body that is not JSON is refused as the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made; the try block emptied drops every body and is killed, disabled with it as a comment cannot reach a catch block alone
        try {
          body = parseJsonObject(read.bytes, req.headers['content-type']) ?? {};
        } catch (e) {
          throw new ControlError(400, e instanceof ApiError ? e.message : 'bad body');
        }
        // Stryker restore BlockStatement,StringLiteral
      } else req.resume();
      // Stryker disable next-line StringLiteral: the suite's control paths end without a slash (GET / reads as no segment either way), and a method is always sent
      const reply = this.route(req.method ?? 'GET', path.replace(/\/$/, '').split('/').slice(1), body);
      // Stryker disable next-line ConditionalExpression: an answer without a body sent as JSON is sent as no body (JSON.stringify of nothing is nothing)
      if (reply.body === undefined) sendEmpty(res, reply.status);
      else sendJson(res, reply.status, JSON.stringify(reply.body));
    } catch (e) {
      // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
      const status = e instanceof ControlError ? e.status : 500;
      // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
      const message = e instanceof Error ? e.message : 'control error';
      req.resume();
      // Stryker disable next-line ObjectLiteral: a refusal's text (the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made)
      sendJson(res, status, JSON.stringify({ error: message }));
    }
  }

  // Stryker disable all: only named faults act here (regrant-disables-key, regrant-changes-role, regrant-archives-definitions; inert with no fault on)
  /** Side effects of a grant change that only named faults have. */
  private regrantFaults(key: ApiKey, next: Scope[]): void {
    const ws = this.store.workspaces.get(key.workspaceId);
    if (this.faults.has('regrant-disables-key') && key.state === 'enabled') key.state = 'disabled';
    const member = ws?.members.get(key.userId);
    if (this.faults.has('regrant-changes-role') && member) member.role = member.role === 'analyst' ? 'admin' : 'analyst';
    if (this.faults.has('regrant-archives-definitions') && ws && key.scopes.includes('admin') && !next.includes('admin')) {
      for (const r of ws.definitions.values()) {
        if (r.def.created_by !== key.userId || r.def.state === 'archived') continue;
        r.def.state = 'archived';
        r.def.archived_at = r.def.updated_at = this.store.now();
      }
    }
  }

  // Stryker restore all
  // Stryker disable all: the cast addition is the test harness's interface (docs/control-protocol-additions.md), not a rule of the API document: a cast member made wrong is the run's harness error (provisioning checks the answer) or a check's wrong premise, and test/reference/control.test.ts tests the addition against the calls one by one
  /**
   * One member of a workspace created with its cast (an addition to version 1): the member, its
   * key, and its role. A "member" cannot be given a key (control protocol, Roles): it is made an
   * analyst, given its key, and moved, as the calls one by one would do.
   */
  private castMember(ws: Workspace, m: { role: Role; scopes: Scope[] }): { userId: string; keyId: string; secret: string } {
    const s = this.store;
    const userId = s.addMember(ws, m.role === 'member' ? 'analyst' : m.role);
    const key = s.createKey(ws, userId, m.scopes);
    if (m.role === 'member') ws.members.get(userId)!.role = 'member';
    return { userId, keyId: key.keyId, secret: key.secret };
  }
  // Stryker restore all

  /** POST /workspaces/{ws}/labels (an addition to version 1): the entity carries that value of the definition. */
  // Stryker disable next-line BlockStatement: a label not planted is caught by the check that plants it (a harness error: the addition answered and did not do it), not by a clause
  private plantLabel(ws: Workspace, b: Body): string {
    const { definitionId, entityKind, entityId, slug } = b;
    // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
    if (typeof definitionId !== 'string' || typeof entityId !== 'string' || typeof slug !== 'string') throw new ControlError(400, 'definitionId, entityId and slug must be strings');
    // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
    if (entityKind !== 'account' && entityKind !== 'contact') throw new ControlError(400, 'entityKind must be account or contact');
    const rec = ws.definitions.get(definitionId);
    // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
    if (!rec) throw new ControlError(404, `unknown definition ${definitionId}`);
    // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
    if (!rec.def.enum_values.some((v) => v.slug === slug)) throw new ControlError(400, `the definition has no enum value ${slug}`);
    // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
    if (!labelledEntity(ws, entityKind, entityId)) throw new ControlError(404, `unknown ${entityKind} ${entityId}`);
    // Stryker disable next-line ObjectLiteral: as above: a label planted on nothing is the check's harness error, not a clause's failure
    return assignLabel(ws, rec, { kind: entityKind, id: entityId }, slug, this.store.newId(), this.store.now()).id;
  }

  private route(method: string, seg: string[], b: Body): Reply {
    const s = this.store;
    const [a0, a1, a2, a3, a4] = seg;
    const n = seg.length;
    const is = (m: string, ...pattern: (string | null)[]) => method === m && n === pattern.length && pattern.every((p, i) => p === null || p === seg[i]);

    if (is('GET')) return { status: 200, body: { protocol: 'wg-control', version: 1 } };
    if (is('POST', 'workspaces')) {
      const credits = b.credits ?? 1_000_000;
      // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
      if (typeof credits !== 'number' || !Number.isFinite(credits) || credits < 0) throw new ControlError(400, 'credits must be a number of at least 0');
      // The cast addition (docs/control-protocol-additions.md): members and their keys in the same call.
      // Stryker disable next-line all: the cast addition is optional: a target without it (as this line mutated makes the reference) is provisioned one call at a time, with the same cast
      const cast = b.members === undefined ? undefined : castOf(b.members);
      const ws = s.createWorkspace(credits);
      // Stryker disable next-line all: as above
      if (!cast) return { status: 201, body: { workspaceId: ws.id } };
      // Stryker disable next-line all: as above
      return { status: 201, body: { workspaceId: ws.id, members: cast.map((m) => this.castMember(ws, m)) } };
    }
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a looser match of a control path only routes paths the suite never sends (the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made)
    if (a0 === 'workspaces' && a1 !== undefined) {
      if (is('DELETE', 'workspaces', null)) {
        // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
        if (!s.deleteWorkspace(a1)) throw new ControlError(404, `unknown workspace ${a1}`);
        if (this.faults.has('workspace-delete-drops-every-key')) s.keysBySecret.clear();
        return { status: 204 };
      }
      const ws = workspace(s, a1);
      if (is('POST', 'workspaces', null, 'pause')) return ((ws.apiAccess = false), { status: 204 });
      if (is('POST', 'workspaces', null, 'resume')) return ((ws.apiAccess = !this.faults.has('resume-keeps-paused')), { status: 204 });
      if (is('POST', 'workspaces', null, 'members')) return { status: 201, body: { userId: s.addMember(ws, role(b.role)) } };
      // Stryker disable next-line ConditionalExpression,LogicalOperator: a looser match of a control path only routes paths the suite never sends (the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made)
      if (a2 === 'members' && a3 !== undefined && n === 4) {
        const member = ws.members.get(a3);
        // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
        if (!member) throw new ControlError(404, `unknown member ${a3}`);
        if (method === 'PATCH') return ((member.role = role(b.role)), { status: 204 });
        // Stryker disable next-line ConditionalExpression: a looser match of a control path only routes paths the suite never sends (the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made) (PATCH is answered above; only DELETE comes here)
        if (method === 'DELETE') return (ws.members.delete(a3), { status: 204 });
      }
      if (is('POST', 'workspaces', null, 'keys')) {
        const userId = b.userId;
        // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
        if (typeof userId !== 'string') throw new ControlError(400, 'userId must be a string');
        const granted = scopes(b.scopes);
        const member = ws.members.get(userId);
        // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
        if (!member) throw new ControlError(404, `unknown member ${userId}`);
        // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
        if (member.role === 'member') throw new ControlError(409, 'a member with role "member" cannot hold a new key');
        const key = s.createKey(ws, userId, granted);
        return { status: 201, body: { keyId: key.keyId, secret: key.secret } };
      }
      if (is('GET', 'workspaces', null, 'usage')) return { status: 200, body: { balance: ws.balance, charged: ws.charged, entries: ws.ledger.map((e) => ({ ...e })) } };
      if (is('PUT', 'workspaces', null, 'rate-limit')) {
        const rpm = b.requestsPerMinute;
        // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
        if (rpm !== null && (typeof rpm !== 'number' || !Number.isInteger(rpm) || rpm < 0)) throw new ControlError(400, 'requestsPerMinute must be a non-negative integer or null');
        setLimit(ws, rpm as number | null);
        return { status: 204 };
      }
      if (is('PUT', 'workspaces', null, 'capabilities')) {
        // Stryker disable next-line BlockStatement: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made
        for (const [k, v] of Object.entries(b)) {
          // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
          if (!(CAPABILITY_NAMES as readonly string[]).includes(k) || typeof v !== 'boolean') throw new ControlError(400, `capabilities: ${k} must be a capability name with a boolean`);
        }
        for (const [k, v] of Object.entries(b)) ws.capabilities[k as CapabilityName] = v as boolean;
        return { status: 204 };
      }
      // Stryker disable all: the reference's own extension for its own tests (docs/control-protocol-additions.md): no check relies on it
      if (is('PUT', 'workspaces', null, 'execution')) {
        // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
        if (typeof b.hold !== 'boolean') throw new ControlError(400, 'hold must be a boolean');
        ws.holdExecution = b.hold;
        if (!b.hold) this.executor.release(ws);
        return { status: 204 };
      }
      // Stryker restore all
      // Stryker disable next-line StringLiteral: the names a check gives the records it makes are its own labels (see optString)
      if (is('POST', 'workspaces', null, 'accounts')) return { status: 201, body: { accountId: createAccount(s, ws, optString(b, 'name'), optString(b, 'domain')).id } };
      // Stryker disable next-line ConditionalExpression,LogicalOperator: a looser match of a control path only routes paths the suite never sends (the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made)
      if (is('POST', 'workspaces', null, 'accounts', null, 'people') && a3 !== undefined) {
        const account = ws.accounts.get(a3);
        // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
        if (!account) throw new ControlError(404, `unknown account ${a3}`);
        // Stryker disable next-line StringLiteral: the names and titles a check gives the records it makes are its own labels (see optString)
        const ap = createPerson(s, ws, account, optString(b, 'name'), optString(b, 'title'));
        return { status: 201, body: { personId: ap.personId, accountPersonId: ap.id } };
      }
      // Stryker disable all: the labels addition is optional (docs/control-protocol-additions.md): a target without it, as these routes gone make the reference, leaves the checks that need it not observable, as they say
      if (is('POST', 'workspaces', null, 'labels')) return { status: 201, body: { labelId: this.plantLabel(ws, b) } };
      if (is('GET', 'workspaces', null, 'labels')) {
        const labels = [...ws.labels.values()].map((l) => ({ labelId: l.id, definitionId: l.definitionId, entityKind: l.entityKind, entityId: l.entityId, slug: l.slug }));
        return { status: 200, body: { labels } };
      }
      // Stryker restore all
      void a4;
    }
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a looser match of a control path only routes paths the suite never sends (the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made)
    if (a0 === 'keys' && a1 !== undefined && n === 3) {
      const key = s.keysById.get(a1);
      // Stryker disable next-line all: the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made, and test/reference/control.test.ts tests these refusals
      if (!key) throw new ControlError(404, `unknown key ${a1}`);
      if (is('PUT', 'keys', null, 'scopes')) {
        const next = [...new Set(scopes(b.scopes))];
        this.regrantFaults(key, next);
        key.scopes = next;
        return { status: 204 };
      }
      if (is('POST', 'keys', null, 'revoke')) return ((key.state = 'revoked'), { status: 204 });
      if (is('POST', 'keys', null, 'disable')) {
        // A revoked key stays revoked.
        if (key.state !== 'revoked') key.state = 'disabled';
        return { status: 204 };
      }
      // Stryker disable next-line ConditionalExpression: a looser match of a control path only routes paths the suite never sends (the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made)
      if (is('POST', 'keys', null, 'enable')) {
        // Stryker disable next-line StringLiteral: a fault switch's name (off with no fault on either way) and a refusal's message
        if (key.state === 'revoked' && !this.faults.has('enable-revives-revoked-key')) throw new ControlError(409, 'a revoked key cannot be enabled');
        if (this.faults.has('enable-keeps-key-disabled')) return { status: 204 };
        // Stryker disable next-line StringLiteral: a key's state is only ever compared with 'revoked' and 'disabled' (auth.ts), so any other word is enabled
        return ((key.state = 'enabled'), { status: 204 });
      }
    }
    // Stryker disable next-line StringLiteral: a refusal's message (the control protocol's refusals of malformed or unknown control requests are the test harness's interface (../shared/control-protocol.md), not a rule of the API document: the suite sends only well-formed control requests for what it made)
    throw new ControlError(404, `no control endpoint ${method} /${seg.join('/')}`);
  }
}
