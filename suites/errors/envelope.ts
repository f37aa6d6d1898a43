/**
 * Judging an error body against seed part 7, split by clause so that each defect is reported
 * once, under the clause that owns it:
 *
 * - no envelope at all (not a JSON object): the clause of the situation, passed in as
 *   `presence` (ERR-003 for an unknown route, ERR-008 for a 429...), or ERR-001 for ordinary
 *   refusals;
 * - an object whose fields are missing or mistyped (validateSchema 'ErrorEnvelope'): ERR-001;
 * - a status of the table without defined true, the table's code and the HTTP status: ERR-002,
 *   read from x-wgc-known-errors in specs/openapi.yaml.
 *
 * Findings are soft (ctx.softFail), so a check goes on judging its other responses.
 */
import type { CheckContext } from '../../src/engine/check.ts';
import { describeResponse, INVALID_STATUSES } from '../../src/engine/expect.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { validateSchema } from '../../src/spec/validate.ts';
import { isObject } from '../_shared/json.ts';

/** The clauses every check that judges envelopes must name (besides its own). */
export const ENVELOPE_CLAUSES = ['ERR-001', 'ERR-002'] as const;

interface KnownError {
  status: number;
  code: string;
}

/** The x-wgc-known-errors table of the ErrorEnvelope schema (seed part 7). */
async function knownErrors(): Promise<readonly KnownError[]> {
  const spec = await loadSpec();
  const table = spec.componentSchema('ErrorEnvelope')['x-wgc-known-errors'];
  if (!Array.isArray(table)) throw new Error('specs/openapi.yaml: ErrorEnvelope has no x-wgc-known-errors table');
  return table as KnownError[];
}

/** True when the exchange got an error status (4xx or 5xx). */
export const isError = (ex: Exchange): boolean => ex.response !== undefined && ex.response.status >= 400;

/**
 * Judges the error body of `ex` (which must have an error status); `presence` owns "there is
 * no envelope at all". Returns false when that was the case.
 */
export async function judgeEnvelope(ctx: CheckContext, ex: Exchange, presence = 'ERR-001'): Promise<boolean> {
  const res = ex.response;
  if (!res) return false;
  const body = res.json;
  if (!res.isJson || !isObject(body)) {
    ctx.softFail({
      clause: presence,
      message: `the ${res.status} answer has no error envelope: the body is not a JSON object`,
      expected: '{ defined, code, status, message, data? }',
      received: describeResponse(res),
      exchange: ex,
    });
    return false;
  }
  // The presence of an envelope; for ERR-001 its fields are judged (and counted) just below.
  if (presence !== 'ERR-001') ctx.judged(presence);
  const spec = await loadSpec();
  const issues = validateSchema(spec, 'ErrorEnvelope', body);
  ctx.judged('ERR-001');
  if (issues.length > 0) {
    ctx.softFail({
      clause: 'ERR-001',
      message: `the ${res.status} error envelope is malformed: ${issues.map((i) => i.message).join('; ')}`,
      expected: 'defined boolean, code string, status number, message string',
      received: describeResponse(res),
      exchange: ex,
    });
  }
  const known = (await knownErrors()).find((k) => k.status === res.status);
  if (known) ctx.judged('ERR-002');
  if (known && (body.defined !== true || body.code !== known.code || body.status !== res.status)) {
    ctx.softFail({
      clause: 'ERR-002',
      message: `the ${res.status} error does not carry the table's constants`,
      expected: `defined true, code ${known.code}, status ${res.status}`,
      received: `defined ${JSON.stringify(body.defined)}, code ${JSON.stringify(body.code)}, status ${JSON.stringify(body.status)}`,
      exchange: ex,
    });
  }
  return true;
}

/** How the accepted refusals of an invalid request read in findings. */
export const INVALID_EXPECTED = '400 BAD_REQUEST, or 422 with defined false';

/**
 * Judges the answer to a request the check made invalid (a malformed or mistyped body, a
 * non-JSON body): refused with one of INVALID_STATUSES (400, or 422 outside the table: part 7
 * rule 4 leaves open which status each condition yields), or one of `also` (e.g. 415 for a
 * content type). The envelope is judged (ERR-001, ERR-002), and a refusal with a status
 * outside the table must say `defined: false` (part 7: "otherwise defined is false"), which is
 * recorded on `clause`, the clause that accepted that status; `presence` owns "no envelope at
 * all" as in judgeEnvelope. Returns false, judging nothing, when the answer is not such a
 * refusal: the caller reports that under its clause.
 */
export async function judgeInvalidRefusal(ctx: CheckContext, ex: Exchange, clause: string, opts: { also?: readonly number[]; presence?: string } = {}): Promise<boolean> {
  const res = ex.response;
  if (!res || !(INVALID_STATUSES.includes(res.status) || (opts.also ?? []).includes(res.status))) return false;
  // Refused as invalid: the caller's clause held on the status (its defined flag is judged below).
  ctx.judged(clause);
  if (!(await judgeEnvelope(ctx, ex, opts.presence))) return true;
  const known = (await knownErrors()).some((k) => k.status === res.status);
  const defined = isObject(res.json) ? res.json.defined : undefined;
  if (!known && defined !== false) {
    ctx.softFail({
      clause,
      message: `a ${res.status}, which is not in the table of part 7, has defined ${JSON.stringify(defined)}`,
      expected: `defined false on a ${res.status}`,
      received: describeResponse(res),
      exchange: ex,
    });
  }
  return true;
}
