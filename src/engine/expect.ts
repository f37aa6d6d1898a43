/**
 * Shared expectations. Each throws a Finding with evidence (clause, message, expected,
 * received, exchange) when the target deviates; suites pass the clause ids, so the helpers
 * stay generic and no rule is restated in a suite file.
 */
import { Disabled, Finding, NotObservable } from './finding.ts';
import { isExchange, type CapturedResponse, type Exchange } from '../http/exchange.ts';
import { judged } from './judged.ts';

/** The error table of the API document (part 7): status → code and default message. */
export const KNOWN_ERRORS: Readonly<Record<number, { code: string; message: string }>> = {
  400: { code: 'BAD_REQUEST', message: 'Invalid request' },
  401: { code: 'UNAUTHORIZED', message: 'An API key is required' },
  403: { code: 'FORBIDDEN', message: 'Access denied' },
  404: { code: 'NOT_FOUND', message: 'Resource not found' },
  409: { code: 'CONFLICT', message: 'Request conflicts with current state' },
  429: { code: 'TOO_MANY_REQUESTS', message: 'Rate limit exceeded' },
  500: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' },
  503: { code: 'SERVICE_UNAVAILABLE', message: 'Capability is not configured' },
};

/**
 * The statuses of a request refused as invalid (a broken bound, a wrong type, a malformed body
 * or parameter): 400, the table's code for an invalid request, or 422, outside the table (so
 * with defined false and a free-form code), which part 7 allows since rule 4 leaves open which
 * condition yields which status. Checks that require an invalid request to be refused accept
 * both; the catalog records the reading (docs/interpretations.md, "Invalid requests").
 */
export const INVALID_STATUSES: readonly number[] = [400, 422];

export interface ErrorEnvelope {
  defined: boolean;
  code: string;
  status: number;
  message: string;
  data?: unknown;
}

const MAX_SHOWN = 300;

/** A short, single-line rendering of a response for `received`. */
export function describeResponse(res: CapturedResponse): string {
  const body = res.isJson ? JSON.stringify(res.json) : res.text;
  const shown = body.length > MAX_SHOWN ? `${body.slice(0, MAX_SHOWN)}…` : body;
  return `${res.status}${shown ? ` ${shown.replace(/\s+/g, ' ')}` : ''}`;
}

const list = (allowed: number | readonly number[]): readonly number[] => (typeof allowed === 'number' ? [allowed] : allowed);

/**
 * The exchange got a complete response. A transport failure is a finding ("no response: timeout
 * …"), except refusals that come from configuration (insecure transport: disabled) or from the
 * run's retry budget (not observable).
 */
export function expectResponse(clause: string, ex: Exchange): CapturedResponse {
  if (ex.error?.kind === 'insecure-refused') throw new Disabled(ex.error.message);
  if (ex.error?.kind === 'budget') throw new NotObservable(`the run's request budget is spent: ${ex.error.message}`);
  if (!ex.response || ex.error) {
    const what = ex.error ? `${ex.error.kind}: ${ex.error.message}` : 'no response';
    throw new Finding({ clause, message: `no usable response: ${what}`, expected: 'a complete HTTP response', received: what, exchange: ex });
  }
  return ex.response;
}

/** The status is one of `allowed`. Returns the response. */
export function expectStatus(clause: string, ex: Exchange, allowed: number | readonly number[]): CapturedResponse {
  const res = expectResponse(clause, ex);
  const ok = list(allowed);
  if (!ok.includes(res.status)) {
    throw new Finding({
      clause,
      message: `${ex.request.method} answered ${res.status}, expected ${ok.join(' or ')}`,
      expected: `status ${ok.join(' or ')}`,
      received: describeResponse(res),
      exchange: ex,
    });
  }
  judged(clause);
  return res;
}

/** The body parsed as JSON. Returns the parsed value. */
export function expectJson(clause: string, ex: Exchange): unknown {
  const res = expectResponse(clause, ex);
  if (!res.isJson) {
    throw new Finding({ clause, message: 'the body is not JSON', expected: 'a JSON body', received: describeResponse(res), exchange: ex });
  }
  judged(clause);
  return res.json;
}

/** Clause ids for expectErrorEnvelope: the envelope shape, the table constants, the status. */
export interface ErrorEnvelopeClauses {
  /** Every error body is an object with defined, code, status, message (e.g. ERR-001). */
  envelope: string;
  /** Table statuses carry defined true and the table's code and status (e.g. ERR-002). Default: envelope. */
  known?: string;
  /** The clause that demanded the status, when `status` is given. Default: envelope. */
  status?: string;
}

/**
 * The response is an error envelope (part 7): an object with defined (boolean), code (string),
 * status (number), message (string) and optional data; for a status of the table, defined is
 * true, code is the table's and status equals the HTTP status. With `status`, the HTTP status
 * must also be one of those. Returns the envelope.
 */
export function expectErrorEnvelope(ids: ErrorEnvelopeClauses, ex: Exchange, status?: number | readonly number[]): ErrorEnvelope {
  const res = status !== undefined ? expectStatus(ids.status ?? ids.envelope, ex, status) : expectResponse(ids.envelope, ex);
  const fail = (clause: string, message: string, expected: string): never => {
    throw new Finding({ clause, message, expected, received: describeResponse(res), exchange: ex });
  };
  const body = res.json as Record<string, unknown> | null | undefined;
  if (!res.isJson || body === null || typeof body !== 'object' || Array.isArray(body)) {
    fail(ids.envelope, 'the error body is not a JSON object', 'an error envelope { defined, code, status, message }');
  }
  const types: [keyof ErrorEnvelope, string][] = [
    ['defined', 'boolean'],
    ['code', 'string'],
    ['status', 'number'],
    ['message', 'string'],
  ];
  for (const [field, type] of types) {
    if (typeof body![field] !== type) {
      fail(ids.envelope, `the error body's "${field}" is ${field in body! ? `a ${typeof body![field]}` : 'missing'}`, `"${field}" of type ${type}`);
    }
  }
  const env = body as unknown as ErrorEnvelope;
  const known = KNOWN_ERRORS[res.status];
  if (known) {
    const clause = ids.known ?? ids.envelope;
    const want = `defined true, code ${known.code}, status ${res.status}`;
    if (env.defined !== true) fail(clause, `a ${res.status} error has defined ${String(env.defined)}`, want);
    if (env.code !== known.code) fail(clause, `a ${res.status} error has code ${JSON.stringify(env.code)}`, want);
    if (env.status !== res.status) fail(clause, `the error body's status ${env.status} differs from the HTTP status ${res.status}`, want);
  } else if (status !== undefined && env.defined !== false) {
    // A status outside the table that the caller accepts (422, 415...): part 7 says defined is
    // false there; the clause that accepted the status owns it.
    fail(ids.status ?? ids.envelope, `a ${res.status} error (a status outside the table) has defined ${String(env.defined)}`, 'defined false');
  }
  judged(ids.envelope);
  if (known && ids.known !== undefined && ids.known !== ids.envelope) judged(ids.known);
  return env;
}

/**
 * What `probe` observes is the same (as JSON) before and after `action`: the action changed
 * nothing observable. `what` names the observed state in the message, e.g. "the definition list".
 */
export async function expectNoChange<T>(clause: string, probe: () => Promise<unknown>, action: () => Promise<T>, what: string): Promise<T> {
  const before = JSON.stringify(await probe());
  const result = await action();
  const after = JSON.stringify(await probe());
  if (before !== after) {
    const ex = isExchange(result) ? result : undefined;
    throw new Finding({
      clause,
      message: `${what} changed`,
      expected: clip(before),
      received: clip(after),
      ...(ex ? { exchange: ex } : {}),
    });
  }
  judged(clause);
  return result;
}

function clip(s: string): string {
  return s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
}
