/**
 * Shared helpers for the reference target's tests: start a reference, provision a workspace
 * with members and keys through the control protocol, and send API requests.
 */
import { resolveVariant } from '../../src/reference/variants.ts';
import { expect } from 'vitest';
import { startReference, type RunningReference, type VariantName } from '../../src/reference/index.ts';
import type { Role, Scope } from '../../src/engine/check.ts';

export const ALL_SCOPES: Scope[] = ['graph:read', 'graph:write', 'research:run', 'crm:read', 'crm:write', 'admin'];

/**
 * Checks whose request count depends on the wall clock, against a target (the reference) that
 * counts its rate limit per calendar minute: errors/rate-limit-counts-calls counts again when its
 * calls straddle a minute (its Date-header guard), errors/rate-limited sends one call more when
 * the minute turns between its first two under a limit of one a minute. One run may meet the turn
 * and another not: tests comparing runs' requests leave them out.
 */
export const CLOCKED_CHECKS: ReadonlySet<string> = new Set(['errors/rate-limit-counts-calls', 'errors/rate-limited']);

export interface Res {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface Send {
  body?: unknown;
  /** Raw body sent as is (no content type unless given in headers). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** "bearer" (default), "x-api-key" or "none". */
  auth?: 'bearer' | 'x-api-key' | 'none';
  idem?: string;
}

async function toRes(r: Response): Promise<Res> {
  const text = await r.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, text, json };
}

/** A started reference plus typed access to its control protocol and API. */
export class Ref {
  private constructor(readonly ref: RunningReference) {}

  static async start(faults: string[] = [], variant?: VariantName): Promise<Ref> {
    return new Ref(await startReference({ faults, ...(variant ? { variant } : {}) }));
  }

  close(): Promise<void> {
    return this.ref.close();
  }

  /** A control call (token included unless `token` is given). */
  async control(method: string, path: string, body?: unknown, token: string | null = this.ref.controlToken): Promise<Res> {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return toRes(await fetch(this.ref.controlUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  }

  /** An API call; `path` is relative to /api/v1. */
  async api(secret: string | null, method: string, path: string, o: Send = {}): Promise<Res> {
    const headers: Record<string, string> = { ...o.headers };
    if (secret !== null && o.auth !== 'none') {
      if (o.auth === 'x-api-key') headers['x-api-key'] = secret;
      else headers.authorization = `Bearer ${secret}`;
    }
    if (o.idem !== undefined) headers['idempotency-key'] = o.idem;
    let body: string | Uint8Array | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    return toRes(await fetch(`${this.ref.baseUrl}/api/v1${path}`, { method, headers, body }));
  }

  /** A new workspace with an owner key holding every scope. */
  async workspace(credits?: number): Promise<Ws> {
    const r = await this.control('POST', '/workspaces', credits === undefined ? {} : { credits });
    expect(r.status).toBe(201);
    const ws = new Ws(this, r.json.workspaceId);
    ws.owner = await ws.key('owner', ALL_SCOPES);
    return ws;
  }
}

export interface Key {
  secret: string;
  keyId: string;
  userId: string;
}

/** One provisioned workspace. */
export class Ws {
  owner!: Key;
  constructor(
    readonly ref: Ref,
    readonly id: string,
  ) {}

  async member(role: Role): Promise<string> {
    const r = await this.ref.control('POST', `/workspaces/${this.id}/members`, { role });
    expect(r.status).toBe(201);
    return r.json.userId;
  }

  /** A key for a new member of `role` (or for `userId` when given). */
  async key(role: Role, scopes: Scope[], userId?: string): Promise<Key> {
    const uid = userId ?? (await this.member(role));
    const r = await this.ref.control('POST', `/workspaces/${this.id}/keys`, { userId: uid, scopes });
    expect(r.status).toBe(201);
    return { secret: r.json.secret, keyId: r.json.keyId, userId: uid };
  }

  async usage(): Promise<{ balance: number; charged: number; entries: { seq: number; method: string; path: string; status: number; credits: number; surface: string }[] }> {
    const r = await this.ref.control('GET', `/workspaces/${this.id}/usage`);
    expect(r.status).toBe(200);
    return r.json;
  }

  async charged(): Promise<number> {
    return (await this.usage()).charged;
  }

  async account(name = 'Acme', domain?: string): Promise<string> {
    const r = await this.ref.control('POST', `/workspaces/${this.id}/accounts`, domain === undefined ? { name } : { name, domain });
    expect(r.status).toBe(201);
    return r.json.accountId;
  }

  async person(accountId: string, name = 'Jane', title?: string): Promise<{ personId: string; accountPersonId: string }> {
    const r = await this.ref.control('POST', `/workspaces/${this.id}/accounts/${accountId}/people`, title === undefined ? { name } : { name, title });
    expect(r.status).toBe(201);
    return r.json;
  }

  /** API call with the owner's key unless `secret` is given. */
  api(method: string, path: string, o: Send = {}, secret: string = this.owner.secret): Promise<Res> {
    return this.ref.api(secret, method, path, o);
  }

  /** Creates a definition (owner key) and returns it. */
  async definition(extra: Record<string, unknown> = {}): Promise<any> {
    const r = await this.api('POST', '/definitions', { body: { ...validCreate(), ...extra } });
    // The variant's create status (201 by default; the lenient variant answers 202).
    expect(r.status, r.text).toBe(resolveVariant(this.ref.ref.variant).status.create);
    return r.json;
  }

  /** Polls a receipt until it leaves queued/running. */
  async settle(receiptId: string): Promise<any> {
    for (let i = 0; i < 50; i++) {
      const r = await this.api('GET', `/operations/${receiptId}`);
      expect(r.status).toBe(200);
      if (r.json.status !== 'queued' && r.json.status !== 'running') return r.json;
      await new Promise((res) => setTimeout(res, 5));
    }
    throw new Error(`receipt ${receiptId} did not settle`);
  }
}

/** A minimal valid create body. */
export function validCreate(): Record<string, unknown> {
  return { name: 'Tier', moduleKey: 'customers', entityKinds: ['account'], valueType: 'enum', enumValues: [{ label: 'Gold' }, { label: 'Silver' }], reason: 'test' };
}

/** Asserts the error envelope with a known status. */
export function expectError(r: Res, status: number): void {
  const codes: Record<number, string> = {
    400: 'BAD_REQUEST',
    401: 'UNAUTHORIZED',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    409: 'CONFLICT',
    429: 'TOO_MANY_REQUESTS',
    500: 'INTERNAL_SERVER_ERROR',
    503: 'SERVICE_UNAVAILABLE',
  };
  expect(r.status, r.text).toBe(status);
  expect(r.json).toMatchObject({ defined: true, code: codes[status], status });
  expect(typeof r.json.message).toBe('string');
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The 25 fields of seed 2.1 (the suite's own list, held to specs/openapi.yaml by test/spec/documented.test.ts). */
export { DEFINITION_FIELDS } from '../../suites/_shared/documented.ts';
