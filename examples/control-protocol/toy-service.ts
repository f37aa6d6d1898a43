/**
 * A toy in-memory service standing in for YOUR service's internals: workspaces, members,
 * keys, a usage ledger, a rate limit, capability switches and stored accounts. It has its own
 * domain API (plain methods) and serves one endpoint of the real API, GET /api/v1/me, so that
 * the example shows the one thing that matters: what the control protocol sets up is exactly
 * what the API then sees.
 *
 * Nothing here is part of the protocol; minimal.ts is the adapter you would write.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Role = 'owner' | 'admin' | 'analyst' | 'member';
export const ROLES: readonly Role[] = ['owner', 'admin', 'analyst', 'member'];
export const SCOPES = ['graph:read', 'graph:write', 'research:run', 'crm:read', 'crm:write', 'admin'] as const;
export const CAPABILITIES = ['definitions', 'graphReads', 'graphEdits', 'context', 'research', 'enrichment', 'crm', 'workflows', 'automaticCapture', 'relationEditing', 'graphCompute'] as const;

/** A domain error your service would already have; the adapter maps it to a status. */
export class DomainError extends Error {
  constructor(
    readonly kind: 'notFound' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

interface Workspace {
  id: string;
  apiAccess: boolean;
  balance: number;
  charged: number;
  ledger: { seq: number; method: string; path: string; status: number; credits: number; surface: string }[];
  requestsPerMinute: number | null;
  capabilities: Record<string, boolean>;
  members: Map<string, { role: Role; departed: boolean }>;
  accounts: Map<string, { name?: string; domain?: string; people: string[] }>;
}

interface Key {
  id: string;
  secret: string;
  workspaceId: string;
  userId: string;
  scopes: string[];
  state: 'enabled' | 'disabled' | 'revoked';
}

/** The service: all state in memory. */
export class ToyService {
  private readonly workspaces = new Map<string, Workspace>();
  private readonly keys = new Map<string, Key>();

  private ws(id: string): Workspace {
    const w = this.workspaces.get(id);
    if (!w) throw new DomainError('notFound', `no workspace ${id}`);
    return w;
  }

  private key(id: string): Key {
    const k = this.keys.get(id);
    if (!k) throw new DomainError('notFound', `no key ${id}`);
    return k;
  }

  createWorkspace(credits: number): string {
    const id = randomUUID();
    const capabilities = Object.fromEntries(CAPABILITIES.map((c) => [c, true]));
    this.workspaces.set(id, { id, apiAccess: true, balance: credits, charged: 0, ledger: [], requestsPerMinute: null, capabilities, members: new Map(), accounts: new Map() });
    return id;
  }

  deleteWorkspace(id: string): void {
    this.ws(id);
    this.workspaces.delete(id);
    for (const [keyId, k] of this.keys) if (k.workspaceId === id) this.keys.delete(keyId);
  }

  setApiAccess(id: string, on: boolean): void {
    this.ws(id).apiAccess = on;
  }

  addMember(wsId: string, role: Role): string {
    const userId = randomUUID();
    this.ws(wsId).members.set(userId, { role, departed: false });
    return userId;
  }

  setRole(wsId: string, userId: string, role: Role): void {
    const m = this.ws(wsId).members.get(userId);
    if (!m || m.departed) throw new DomainError('notFound', `no member ${userId}`);
    m.role = role;
  }

  removeMember(wsId: string, userId: string): void {
    const m = this.ws(wsId).members.get(userId);
    if (!m || m.departed) throw new DomainError('notFound', `no member ${userId}`);
    m.departed = true;
  }

  /** Seed part 5 rule 2: only owners, admins and analysts can be given a key. */
  issueKey(wsId: string, userId: string, scopes: string[]): { keyId: string; secret: string } {
    const m = this.ws(wsId).members.get(userId);
    if (!m || m.departed) throw new DomainError('notFound', `no member ${userId}`);
    if (m.role === 'member') throw new DomainError('conflict', 'a member cannot hold a new key');
    const keyId = randomUUID();
    // Your real key format: a vendor prefix, an underscore, then the random part (seed part 5 rule 1).
    const secret = `toy_${randomBytes(24).toString('base64url')}`;
    this.keys.set(keyId, { id: keyId, secret, workspaceId: wsId, userId, scopes: [...scopes], state: 'enabled' });
    return { keyId, secret };
  }

  replaceScopes(keyId: string, scopes: string[]): void {
    this.key(keyId).scopes = [...scopes];
  }

  setKeyState(keyId: string, state: Key['state']): void {
    const k = this.key(keyId);
    if (k.state === 'revoked' && state !== 'revoked') {
      if (state === 'enabled') throw new DomainError('conflict', 'a revoked key stays revoked');
      return;
    }
    k.state = state;
  }

  usage(wsId: string): { balance: number; charged: number; entries: Workspace['ledger'] } {
    const w = this.ws(wsId);
    return { balance: w.balance, charged: w.charged, entries: w.ledger.map((e) => ({ ...e })) };
  }

  setRateLimit(wsId: string, requestsPerMinute: number | null): void {
    this.ws(wsId).requestsPerMinute = requestsPerMinute;
  }

  setCapabilities(wsId: string, switches: Record<string, boolean>): void {
    Object.assign(this.ws(wsId).capabilities, switches);
  }

  addAccount(wsId: string, name?: string, domain?: string): string {
    const id = randomUUID();
    this.ws(wsId).accounts.set(id, { name, domain, people: [] });
    return id;
  }

  addPerson(wsId: string, accountId: string): { personId: string; accountPersonId: string } {
    const account = this.ws(wsId).accounts.get(accountId);
    if (!account) throw new DomainError('notFound', `no account ${accountId}`);
    const personId = randomUUID();
    account.people.push(personId);
    return { personId, accountPersonId: randomUUID() };
  }

  /** The API side: who is calling (seed part 5 rule 4: everything re-checked on every call). */
  authenticate(secret: string): { status: 200; key: Key; role: Role; ws: Workspace } | { status: 401 | 403 } {
    const key = [...this.keys.values()].find((k) => k.secret === secret);
    if (!key || key.state !== 'enabled') return { status: 401 };
    const ws = this.workspaces.get(key.workspaceId);
    const member = ws?.members.get(key.userId);
    if (!ws || !member || member.departed) return { status: 401 };
    if (!ws.apiAccess) return { status: 403 };
    return { status: 200, key, role: member.role, ws };
  }

  /** Serves the part of the API this toy has: GET /api/v1/me. Returns false for other paths. */
  handleApi(req: IncomingMessage, res: ServerResponse): boolean {
    if (!req.url?.startsWith('/api/v1/')) return false;
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const auth = req.headers.authorization;
    const secret = auth?.startsWith('Bearer ') ? auth.slice(7) : (req.headers['x-api-key'] as string | undefined);
    const who = secret ? this.authenticate(secret) : ({ status: 401 } as const);
    if (who.status !== 200) {
      const [code, message] = who.status === 401 ? ['UNAUTHORIZED', 'An API key is required'] : ['FORBIDDEN', 'Access denied'];
      send(who.status, { defined: true, code, status: who.status, message });
    } else if (req.method === 'GET' && req.url.split('?')[0] === '/api/v1/me') {
      send(200, {
        workspaceId: who.ws.id,
        userId: who.key.userId,
        role: who.role,
        scopes: who.key.scopes,
        beta: true,
        capabilities: { ...who.ws.capabilities, operationCatalog: '/api/v1/capabilities', moduleVisibility: 'definitions' },
      });
    } else send(404, { defined: true, code: 'NOT_FOUND', status: 404, message: 'Resource not found' });
    return true;
  }
}
