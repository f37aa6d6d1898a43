/**
 * Idempotency-Key handling (seed 4.1). Keys are scoped to the workspace and, by default, to
 * the key holder (member): two members may use the same Idempotency-Key independently (a
 * variant shares keys workspace-wide: the server passes the "holder" it scopes by). A stored
 * entry holds the request fingerprint (method, path, canonical JSON body) and the exact reply.
 * By default only 2xx replies are stored and a refused request leaves the key unused (a
 * variant stores the handler's refusals too: Choices.idempotency).
 */
import { conflict, invalid } from './errors.ts';
import { forgets, type FaultSet } from './faults.ts';
import type { Workspace, StoredReply } from './model.ts';
import { shifted, type BoundShift } from './validate.ts';

const VISIBLE_ASCII_RE = /^[\x21-\x7e]*$/;

/** The header value, or undefined when absent; a present but invalid value is a 400. */
export function idempotencyKeyOf(header: string | string[] | undefined, faults: FaultSet, shift?: BoundShift): string | undefined {
  if (header === undefined) return undefined;
  // Stryker disable next-line ConditionalExpression: unreachable over HTTP: Node joins a repeated Idempotency-Key's values with ", " (refused below: a space), never an array
  if (typeof header !== 'string') throw invalid('Idempotency-Key must be given once');
  if (header.length > 128 && faults.has('long-idempotency-key-409')) throw conflict('Idempotency-Key too long');
  if (header.length > 64 && faults.has('idempotency-key-max-64')) throw invalid('Idempotency-Key must be at most 64 characters');
  // Bounds as a generated bounds fault may move them (header.idempotency-key).
  // Stryker disable next-line StringLiteral: the label only names the bound to a generated bounds fault (inert with no fault on)
  const min = shifted(shift, 'header.idempotency-key', 'min', 1);
  // Stryker disable next-line StringLiteral: the label only names the bound to a generated bounds fault (inert with no fault on)
  const max = shifted(shift, 'header.idempotency-key', 'max', 128);
  const sized = header.length >= min && header.length <= max;
  const ok = sized && (faults.has('idempotency-key-allows-spaces') || VISIBLE_ASCII_RE.test(header));
  if (!ok) throw invalid('Idempotency-Key must be 1 to 128 visible ASCII characters (no spaces)');
  return header;
}

/** JSON with object keys sorted at every depth (bodies are depth-limited before this runs). */
export function canonicalJson(v: unknown): string {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent for the bodies the API takes: an array written as an index-keyed object stays one-to-one (no field takes both), and items run together collide only for adjacent numbers or literals, which no body's array holds
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    // Stryker disable next-line StringLiteral: equivalent: every member starts with its JSON-quoted key, so members run together stay one-to-one
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  // Stryker disable next-line StringLiteral: a parsed JSON body holds no undefined, so the fallback never serves
  return JSON.stringify(v) ?? 'null';
}

/** The input identity of a request. */
export function fingerprint(method: string, path: string, body: unknown, faults: FaultSet): string {
  if (faults.has('idempotency-ignores-body')) return `${method} ${path}`;
  if (faults.has('idempotency-fingerprint-skips-path')) return `${method} ${canonicalJson(body)}`;
  if (faults.has('idempotency-fingerprint-key-order')) return `${method} ${path} ${JSON.stringify(body)}`;
  return `${method} ${path} ${canonicalJson(faults.has('idempotency-fingerprint-skips-arrays') ? withoutArrays(body) : body)}`;
}

const slot = (holder: string, key: string): string => `${holder}\u0000${key}`;

/** The stored reply for this key of this holder (a replay), or undefined; a different input is a 409. */
export function lookup(ws: Workspace, holder: string, key: string, fp: string, faults: FaultSet, surface: string): StoredReply | undefined {
  const stored = ws.idempotency.get(slot(holder, key));
  if (!stored) return undefined;
  // A route that forgets conflicts (rule-cells fault) runs another input as a new request.
  if (stored.fingerprint !== fp && forgets(faults, 'conflict', surface)) return undefined;
  if (stored.fingerprint !== fp) throw conflict('This Idempotency-Key was already used with a different request');
  return stored;
}

/** Stores a reply under the key of this holder. */
export function remember(ws: Workspace, holder: string, key: string, reply: StoredReply): void {
  ws.idempotency.set(slot(holder, key), reply);
}

// Stryker disable all: used only under the fault idempotency-fingerprint-skips-arrays (inert with no fault on)
/** The body without its array-valued properties (the fault idempotency-fingerprint-skips-arrays). */
function withoutArrays(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([, v]) => !Array.isArray(v)));
}
// Stryker restore all
