/**
 * The reference target's whole state: workspaces (with everything they own) and keys.
 * One Store per running reference; nothing is global, so servers in one process never share
 * state. Mutations here are synchronous, which is what makes idempotency race-free.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Role, Scope } from '../engine/check.ts';
import { CAPABILITY_NAMES, type ApiKey, type Workspace } from './model.ts';
import type { CapabilityName } from '../control/types.ts';
import { NO_FAULTS, type FaultSet } from './faults.ts';

/** The fixed vendor prefix of key secrets (seed part 5 rule 1). */
export const KEY_PREFIX = 'wgr_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The exact shape of a key secret: the prefix and 32 base62 characters. */
export const KEY_SECRET_RE = /^wgr_[0-9A-Za-z]{32}$/;
/** A secret without the prefix (issued only under the key-secret-without-prefix fault). */
export const UNPREFIXED_SECRET_RE = /^[0-9A-Za-z]{36}$/;

/** `n` random base62 characters (rejection sampling, no modulo bias). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < 248 && out.length < n) out += BASE62[b % 62];
    }
  }
  return out;
}

/** A fresh random v4 uuid, lowercase. */
export const newId = (): string => randomUUID();

export class Store {
  readonly workspaces = new Map<string, Workspace>();
  readonly keysBySecret = new Map<string, ApiKey>();
  readonly keysById = new Map<string, ApiKey>();
  /** Grants as first seen per key id: used only by the grants-cached-at-first-use fault. */
  readonly grantCache = new Map<string, Scope[]>();
  /** Roles as first seen per key id: used only by the roles-cached-at-first-use fault. */
  readonly roleCache = new Map<string, Role>();
  /** Scopes as of a key's first GET /me: used only by the me-scopes-cached fault. */
  readonly meScopeCache = new Map<string, Scope[]>();
  /** Keys refused once under an idempotency key: used only by the key-after-refusal-not-stored fault. */
  readonly refusedIdempotencyKeys = new Set<string>();

  constructor(private readonly faults: FaultSet = NO_FAULTS) {}

  private lastTime = 0;

  /** A strictly increasing timestamp (so updated_at always advances on a write). */
  now(): string {
    const t = Math.max(Date.now(), this.lastTime + 1);
    this.lastTime = t;
    return new Date(t).toISOString();
  }

  createWorkspace(credits: number): Workspace {
    const caps = {} as Record<CapabilityName, boolean>;
    for (const c of CAPABILITY_NAMES) caps[c] = true;
    const ws: Workspace = {
      id: newId(),
      apiAccess: true,
      balance: credits,
      charged: 0,
      ledger: [],
      members: new Map(),
      capabilities: caps,
      rateLimit: { rpm: null, hits: [] },
      holdExecution: false,
      definitions: new Map(),
      definitionSlugs: { taken: new Set(), next: new Map() },
      accounts: new Map(),
      people: new Map(),
      accountPeople: new Map(),
      labels: new Map(),
      operations: new Map(),
      computeRuns: new Map(),
      traces: new Map(),
      crm: new Map(),
      idempotency: new Map(),
    };
    this.workspaces.set(ws.id, ws);
    return ws;
  }

  deleteWorkspace(id: string): boolean {
    const ws = this.workspaces.get(id);
    if (!ws) return false;
    for (const key of [...this.keysById.values()]) {
      if (key.workspaceId === id) {
        this.keysById.delete(key.keyId);
        this.keysBySecret.delete(key.secret);
      }
    }
    this.workspaces.delete(id);
    return true;
  }

  addMember(ws: Workspace, role: Role): string {
    const userId = newId();
    ws.members.set(userId, { userId, role });
    return userId;
  }

  createKey(ws: Workspace, userId: string, scopes: Scope[]): ApiKey {
    const prefix = this.faults.has('key-secret-without-prefix') ? '' : KEY_PREFIX;
    let secret = prefix + randomBase62(36 - prefix.length);
    while (this.keysBySecret.has(secret)) secret = prefix + randomBase62(36 - prefix.length);
    const key: ApiKey = { keyId: newId(), secret, workspaceId: ws.id, userId, scopes: [...new Set(scopes)], state: 'enabled' };
    this.keysBySecret.set(secret, key);
    this.keysById.set(key.keyId, key);
    return key;
  }
}
