/**
 * Helpers of the auth suite: the keys a check can use, the vendor prefix learnt from real
 * keys, forged credentials, short-lived members, keys and workspaces provisioned through the
 * control protocol (with clean-up), and a tolerant, bounded listing walk.
 */
import { availableKeys as availableCastKeys } from '../_shared/access-cast.ts';
import { randomInt, randomUUID } from 'node:crypto';
import type { ApiRequest, CheckContext, KeyHandle, Role, Scope } from '../../src/engine/check.ts';
import { expectStatus } from '../../src/engine/expect.ts';
import { Finding } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { soft } from './soft.ts';
import { isObject } from '../_shared/json.ts';

/** The cast names of the auth suite, in the order checks prefer them. */
export const CAST_NAMES = ['owner', 'reader', 'admin'] as const;

/** The cast keys this target could supply (a cast member it cannot fill is skipped). */
export function availableKeys(ctx: CheckContext, names: readonly string[] = CAST_NAMES): KeyHandle[] {
  return availableCastKeys(ctx, names);
}

/** True for a complete 2xx response. */
export const ok2xx = (ex: Exchange): boolean => !ex.error && ex.response !== undefined && ex.response.status >= 200 && ex.response.status < 300;

/**
 * The fixed vendor prefix (ending with its underscore) shared by the secrets: the longest
 * common prefix cut after its last underscore; with one secret, everything up to its first
 * underscore. Undefined when there is none (no underscore, or nothing before it).
 */
export function learnPrefix(secrets: readonly string[]): string | undefined {
  const distinct = [...new Set(secrets)];
  if (distinct.length === 0) return undefined;
  let common: string;
  if (distinct.length === 1) {
    const at = distinct[0]!.indexOf('_');
    common = at < 0 ? '' : distinct[0]!.slice(0, at + 1);
  } else {
    common = distinct.reduce((a, b) => {
      let i = 0;
      while (i < a.length && i < b.length && a[i] === b[i]) i++;
      return a.slice(0, i);
    });
    common = common.slice(0, common.lastIndexOf('_') + 1);
  }
  // A prefix is at least one character followed by the underscore, and keys go on after it.
  if (common.length < 2 || distinct.some((s) => s.length <= common.length)) return undefined;
  return common;
}

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A random string shaped like `like`: every digit, lower- and upper-case letter replaced by a
 * random one of its class, anything else kept. Used to forge a well-formed key that no server
 * issued (same length and alphabet as a real one), without assuming the target's key format.
 */
export function shapedLike(like: string): string {
  let out = '';
  for (const c of like) {
    const set = DIGITS.includes(c) ? DIGITS : LOWER.includes(c) ? LOWER : UPPER.includes(c) ? UPPER : undefined;
    out += set ? set[randomInt(set.length)] : c;
  }
  return out;
}

/** A well-formed key with the learnt prefix that differs from every known secret. */
export function unknownKey(prefix: string, known: readonly string[]): string {
  const model = known[0]!.slice(prefix.length);
  for (let i = 0; i < 20; i++) {
    const forged = prefix + shapedLike(model);
    if (!known.includes(forged)) return forged;
  }
  throw new Error('could not forge a key that differs from the known ones');
}

/**
 * A real secret with one character (at `index`, negative from the end) replaced by another of
 * its class: a key nobody issued that a server comparing only part of the secret would accept.
 */
export function nearMiss(secret: string, index: number): string {
  const at = index < 0 ? secret.length + index : index;
  const c = secret[at]!;
  const set = DIGITS.includes(c) ? DIGITS : LOWER.includes(c) ? LOWER : UPPER.includes(c) ? UPPER : LOWER;
  const other = set[(set.indexOf(c) + 1 + randomInt(set.length - 1)) % set.length]!;
  return secret.slice(0, at) + other + secret.slice(at + 1);
}

/** A prefix of the same length and shape as `prefix` but different in every letter or digit. */
export function wrongPrefix(prefix: string): string {
  const body = prefix.slice(0, -1);
  let out = '';
  for (const c of body) {
    // Rotate within the class so every character differs from the original.
    if (DIGITS.includes(c)) out += DIGITS[(DIGITS.indexOf(c) + 5) % 10];
    else if (LOWER.includes(c)) out += LOWER[(LOWER.indexOf(c) + 13) % 26];
    else if (UPPER.includes(c)) out += UPPER[(UPPER.indexOf(c) + 13) % 26];
    else out += 'x';
  }
  return `${out}_`;
}

/** Label under which forged credentials are redacted; no-secret.ts does not count their echoes as key leaks. */
export const FORGED_LABEL = 'forged_credential';

/**
 * A key handle for a forged credential. Sending it through ApiRequest.key registers it for
 * redaction like a real secret, so a forged value derived from a real secret never shows in
 * clear in an exchange or a report.
 */
export const forged = (secret: string): KeyHandle => ({ name: FORGED_LABEL, secret, role: 'member', scopes: [] });

/** A fresh random uuid for path parameters that name nothing. */
export const freshId = (): string => randomUUID();

/** True for a ControlError with this status (a clean-up that finds its target already gone). */
function controlStatus(e: unknown): number | undefined {
  return e instanceof Error && e.name === 'ControlError' ? (e as Error & { status?: number }).status : undefined;
}

/** Runs a clean-up step, ignoring "already gone" (404) answers of the control protocol. */
async function tolerant(step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (e) {
    if (controlStatus(e) !== 404) throw e;
  }
}

/**
 * A new member of `workspaceId` with a key of exactly `scopes`, removed again at clean-up
 * (key revoked, member removed; either may already be gone). `name` labels the secret in
 * captured exchanges.
 */
export async function provisionKey(ctx: CheckContext, workspaceId: string, role: Role, scopes: readonly Scope[], name: string): Promise<KeyHandle> {
  const control = ctx.control;
  const { userId } = await control.addMember(workspaceId, role);
  ctx.cleanup(() => tolerant(() => control.removeMember(workspaceId, userId)));
  const { keyId, secret } = await control.createKey(workspaceId, userId, scopes);
  ctx.cleanup(() => tolerant(() => control.revokeKey(keyId)));
  return { name, secret, role, scopes: [...scopes], keyId, userId, workspaceId };
}

/**
 * A second workspace (deleted at clean-up) with one owner holding a key of `scopes`: made with
 * its owner and key in one control call where the target offers that addition
 * (docs/control-protocol-additions.md), else one call at a time.
 */
export async function otherWorkspace(ctx: CheckContext, scopes: readonly Scope[]): Promise<{ workspaceId: string; key: KeyHandle }> {
  const control = ctx.control;
  const made = await control.createWorkspace(undefined, [{ role: 'owner', scopes }]);
  const { workspaceId } = made;
  ctx.cleanup(() => tolerant(() => control.deleteWorkspace(workspaceId)));
  const member = made.members?.[0];
  if (!member) return { workspaceId, key: await provisionKey(ctx, workspaceId, 'owner', scopes, 'other_workspace') };
  return { workspaceId, key: { name: 'other_workspace', secret: member.secret, role: 'owner', scopes: [...scopes], keyId: member.keyId, userId: member.userId, workspaceId } };
}

/** What a bounded listing walk saw. */
export interface Listing {
  items: Record<string, unknown>[];
  exchanges: Exchange[];
  /** The first page that did not succeed (non-2xx or not a collection), if any. */
  failed?: Exchange;
  /** False when the page cap stopped the walk or a page failed. */
  complete: boolean;
}

/**
 * Lists a collection following nextCursor, at most `maxPages` pages of 200. Tolerant by
 * design: it serves clauses about what is listed, not about the envelope (other suites own
 * that), so a missing nextCursor ends the walk and a failed page is returned, not thrown.
 */
export async function listAll(
  ctx: CheckContext,
  key: KeyHandle,
  path: string,
  opts: { query?: Record<string, string | number | boolean>; headers?: Record<string, string>; maxPages?: number } = {},
): Promise<Listing> {
  const maxPages = opts.maxPages ?? 10;
  const out: Listing = { items: [], exchanges: [], complete: false };
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const req: ApiRequest = { method: 'GET', path, key, query: { limit: 200, ...opts.query, ...(cursor ? { cursor } : {}) } };
    if (opts.headers) req.headers = opts.headers;
    const ex = await ctx.api.send(req);
    out.exchanges.push(ex);
    const body = ex.response?.json;
    if (!ok2xx(ex) || !isObject(body) || !Array.isArray(body.items)) {
      out.failed = ex;
      return out;
    }
    out.items.push(...(body.items.filter(isObject) as Record<string, unknown>[]));
    const next = body.nextCursor;
    if (typeof next !== 'string' || next === '' || seen.has(next)) {
      out.complete = typeof next !== 'string' || next === '';
      return out;
    }
    seen.add(next);
    cursor = next;
  }
  return out;
}

/** The ids of listed items. */
export const idsOf = (items: readonly Record<string, unknown>[]): Set<string> =>
  new Set(
    items
      .map((i) => i.id)
      .filter((id): id is string => typeof id === 'string')
      .map((id) => id.toLowerCase()),
  );

import { canonical } from '../_shared/json.ts';
export { canonical };

/**
 * The exchange answered one of `allowed`; otherwise a finding on `clause` is recorded (not
 * thrown), its message starting with `what` (the case), since credentials show redacted.
 */
export function softStatus(ctx: CheckContext, clause: string, ex: Exchange, allowed: number | readonly number[], what: string): boolean {
  const res = soft(ctx, () => {
    try {
      return expectStatus(clause, ex, allowed);
    } catch (e) {
      if (e instanceof Finding) throw new Finding({ ...e.evidence, message: `${what}: ${e.evidence.message}` });
      throw e;
    }
  });
  return res !== undefined;
}
