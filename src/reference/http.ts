/**
 * Low-level HTTP plumbing: bounded body reading, JSON body parsing (content type, UTF-8,
 * syntax, nesting depth) and reply writing. Nothing here buffers more than the body cap.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from './errors.ts';

/** Largest accepted request body. */
export const BODY_CAP_BYTES = 1024 * 1024;
/** Deepest accepted JSON nesting (the deepest body the seed describes has depth 4). */
export const MAX_JSON_DEPTH = 64;
/** After refusing an oversized body, at most this much more is read (and dropped) before the connection is cut. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

export type BodyRead = { kind: 'ok'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

/** Reads the body up to `cap` bytes. Past the cap the rest is discarded, never kept. */
export function readBody(req: IncomingMessage, cap = BODY_CAP_BYTES): Promise<BodyRead> {
  // Stryker disable next-line StringLiteral: the document sets no body size limit: how the reference caps a body is its own
  const declared = Number(req.headers['content-length']);
  // Stryker disable next-line BlockStatement,ConditionalExpression,EqualityOperator: the document sets no body size limit: how the reference caps a body is its own
  if (Number.isFinite(declared) && declared > cap) {
    drain(req);
    // Stryker disable next-line ObjectLiteral,StringLiteral: the document sets no body size limit: how the reference caps a body is its own
    return Promise.resolve({ kind: 'too-large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyRead) => {
      // Stryker disable next-line ConditionalExpression: the end, close and error handlers each settle the read once, and any one of them suffices for a complete body: equivalent
      if (done) return;
      // Stryker disable next-line BooleanLiteral: the end, close and error handlers each settle the read once, and any one of them suffices for a complete body: equivalent
      done = true;
      // Stryker disable next-line StringLiteral: the end, close and error handlers each settle the read once, and any one of them suffices for a complete body: equivalent
      req.off('data', onData);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      // Stryker disable next-line BlockStatement,EqualityOperator,ConditionalExpression: the document sets no body size limit: how the reference caps a body is its own
      if (size > cap) {
        chunks.length = 0;
        // Stryker disable next-line ObjectLiteral,StringLiteral: the document sets no body size limit: how the reference caps a body is its own
        finish({ kind: 'too-large' });
        drain(req);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    // Stryker disable next-line StringLiteral,ArrowFunction: the end, close and error handlers each settle the read once, and any one of them suffices for a complete body: equivalent
    req.once('end', () => finish({ kind: 'ok', bytes: Buffer.concat(chunks, size) }));
    // Stryker disable next-line ObjectLiteral,StringLiteral,ArrowFunction: the end, close and error handlers each settle the read once, and any one of them suffices for a complete body: equivalent
    req.once('error', () => finish({ kind: 'aborted' }));
    // Stryker disable next-line ObjectLiteral,StringLiteral,ArrowFunction: the end, close and error handlers each settle the read once, and any one of them suffices for a complete body: equivalent
    req.once('close', () => finish(req.complete ? { kind: 'ok', bytes: Buffer.concat(chunks, size) } : { kind: 'aborted' }));
  });
}

// Stryker disable all: the document sets no body size limit: how the reference caps a body is its own (what is read past the cap is dropped)
/** Discards the rest of a body; cuts the connection if it goes on too long. */
export function drain(req: IncomingMessage): void {
  let dropped = 0;
  req.on('data', (c: Buffer) => {
    dropped += c.length;
    if (dropped > DRAIN_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}

// Stryker restore all
const JSON_TYPE_RE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

// Stryker disable all: the document sets no nesting limit (the depth cap is the reference's own), and what follows a complete JSON value is read either way by conformant servers (ERR-004's reading, a variant's choice)
/** Depth of a parsed JSON value, computed without recursion. */
export function jsonDepth(root: unknown, stopAt: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > stopAt) return max;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
  }
  return max;
}

/**
 * The end of the JSON object or array that `text` starts with (after white space), found
 * without parsing it: brackets are counted outside strings. -1 when it does not close.
 */
export function endOfFirstValue(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && !/\s/.test(c!)) return -1;
  }
  return -1;
}

// Stryker restore all
/**
 * Parses a request body as a JSON object. An empty body counts as absent (undefined).
 * Bad UTF-8, bad JSON, too deep nesting and non-objects are 400s; a wrong content type is a
 * 400 too unless `wrongTypeStatus` says otherwise (a variant may answer 415), and no error at
 * all with `anyType`. With `ignoreTrailing` (a variant's choice, as Go's json.Decoder), what
 * follows a complete JSON object or array is ignored.
 */
// Stryker disable next-line BooleanLiteral: the defaults pick among readings ERR-006 and ERR-004 both accept (another content type refused or read as JSON; trailing bytes refused or ignored), each a variant's choice
export function parseJsonObject(bytes: Buffer, contentType: string | undefined, anyType = false, wrongTypeStatus: 400 | 415 = 400, ignoreTrailing = false): Record<string, unknown> | undefined {
  if (bytes.length === 0) return undefined;
  // Stryker disable next-line BlockStatement,ConditionalExpression,BooleanLiteral,LogicalOperator,MethodExpression: ERR-006 accepts a body of another content type refused with a 4xx or processed as JSON; which the reference does is a variant's choice
  if (!anyType && (contentType === undefined || !JSON_TYPE_RE.test(contentType.trim()))) {
    throw new ApiError(wrongTypeStatus, 'The body must be JSON sent with Content-Type: application/json');
  }
  let text: string;
  // Stryker disable BlockStatement: the catch block emptied, bytes that are not UTF-8 leave no text and are refused as malformed JSON below (400 either way); the try block emptied refuses every body and is killed, disabled with it as a comment cannot reach a catch block alone
  try {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: bytes that are not UTF-8 may be refused or read with U+FFFD (Go's encoding/json replaces them): the document does not say which
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw badRequest('The body is not valid UTF-8');
  }
  // Stryker restore BlockStatement
  let value: unknown;
  // Stryker disable BlockStatement: the catch block emptied, malformed JSON leaves no value, which is refused as a body that is not an object (400, below; the refusal's message and data are free: part 7); the try block emptied refuses every body and is killed, disabled with it as a comment cannot reach a catch block alone
  try {
    const end = ignoreTrailing ? endOfFirstValue(text) : -1;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,MethodExpression: trailing bytes after a complete value are read either way (ERR-004's reading, a variant's choice)
    value = JSON.parse(end < 0 ? text : text.slice(0, end));
  } catch (e) {
    // Stryker disable next-line ObjectLiteral,StringLiteral: the error's data and message are free (part 7); the syntax reason is read only under the fault malformed-json-422-defined
    throw new ApiError(400, `The body is not valid JSON (${e instanceof SyntaxError ? e.message.slice(0, 200) : 'parse error'})`, { reason: 'syntax' });
  }
  // Stryker restore BlockStatement
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the document sets no nesting limit
  if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw badRequest(`The body nests deeper than ${MAX_JSON_DEPTH} levels`);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a body that is no object is refused by every route's own reading too (its required fields are missing): equivalent
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('The body must be a JSON object');
  return value as Record<string, unknown>;
}

// Stryker disable all: read only under the named fault form-bodies-parsed (inert with no fault on)
/** A form-encoded content type (only the form-bodies-parsed fault reads such bodies). */
export function isFormBody(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/x-www-form-urlencoded\b/i.test(contentType.trim());
}

/**
 * A form body read as an object, each value that parses as JSON taken as JSON (the
 * form-bodies-parsed fault: a server that reads forms besides JSON, which ERR-006 forbids).
 */
export function parseFormAsJson(bytes: Buffer): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(bytes.toString('utf8'))) {
    try {
      out[k] = JSON.parse(v);
    } catch {
      out[k] = v;
    }
  }
  return out;
}

// Stryker restore all
/** Writes a JSON reply (text already serialised). */
export function sendJson(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  // 204 and 304 carry no body (RFC 9110 15.3.5, 15.4.5): nor a content length or type for one.
  // Stryker disable next-line ConditionalExpression,LogicalOperator: no reply of the reference with a body has status 204 or 304 (empty replies go through sendEmpty): equivalent
  if (status === 204 || status === 304) return sendEmpty(res, status, headers);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a reply is written once, to an open socket, in every run: the guard is never true
  if (res.headersSent || res.destroyed) return;
  // Stryker disable next-line ObjectLiteral,StringLiteral: the document names no response content type or length framing (bodies are JSON; a client reads them as JSON whatever the header says)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Writes an empty reply (204). */
export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a reply is written once, to an open socket, in every run: the guard is never true
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, headers);
  res.end();
}
