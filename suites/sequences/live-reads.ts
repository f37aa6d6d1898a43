/**
 * The steps of an operations sequence that reach past the definitions (4.9): live CRM reads
 * (POST /query through the three crm.read_partner_* operations) and bulk compute runs (POST
 * /compute/runs, polled at GET /compute/runs/{id}), with the grant or role they need taken away
 * between two calls (test-control protocol).
 *
 * Their request shapes are not shown: the first accepted candidate (a key holding every grant
 * the row needs) is the shape the sequence uses from then on. Until one is accepted, nothing
 * about the row is judged. What a live read or a compute run costs beyond its credit is not
 * shown either (part 8 rule 3): each is owed at least one credit (`metered`), the ledger
 * judgement leaves their surplus alone and holds every other call to its exact price.
 */
import type { KeyHandle } from '../../src/engine/check.ts';
import { Finding } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { fieldsIn, QUERY_OPERATIONS, queryShapesFor } from '../_shared/access-shapes.ts';
import { is2xx } from '../_shared/definitions.ts';
import { computeRunShapes, type Shape } from '../_shared/ops-shapes.ts';
import { findResourceId, pollUntil } from '../_shared/receipts.ts';
import type { Model } from './model.ts';
import { answer, fail, send, type Runner } from './runner.ts';

/** How long a started compute run may take to answer 2xx (the operations suite's bound; --patience multiplies it). */
const RUN_BOUND_MS = 3_000;

/** POST /query or POST /compute/runs, by path: their charge may exceed one credit. */
export const isMeteredCall = (method: string, path: string): boolean => method.toUpperCase() === 'POST' && /\/(query|compute\/runs|compute\/preview)$/.test(path.split('?')[0]!);
/** GET /compute/runs/{id}, by path: free (part 8 rule 2). */
export const isComputePoll = (method: string, path: string): boolean => method.toUpperCase() === 'GET' && /\/compute\/runs\/[^/]+$/.test(path.split('?')[0]!);

/** The accepted shape of a row, tried once per sequence: `null` when every candidate was refused. */
async function shapeOf(r: Runner, row: string, op: KeyHandle, candidates: () => Promise<readonly Shape[]>): Promise<{ shape: Shape; accepted?: Exchange } | undefined> {
  const known = r.shapes.get(row);
  if (known !== undefined) return known === null ? undefined : { shape: known };
  for (const shape of await candidates()) {
    const ex = await send(r, { ...shape, key: op });
    if (!is2xx(ex)) continue;
    r.metered.push(ex);
    r.shapes.set(row, shape);
    return { shape, accepted: ex };
  }
  r.shapes.set(row, null);
  return undefined;
}

/** Takes `change` away for one call, then gives it back, whatever happened. */
async function without<T>(undo: () => Promise<void>, redo: () => Promise<void>, call: () => Promise<T>): Promise<T> {
  await undo();
  try {
    return await call();
  } finally {
    await redo();
  }
}

/** `call` with `scope` taken from the key for it (control protocol), given back whatever happened. */
export function withoutScope<T>(r: Runner, key: KeyHandle & { keyId: string }, scope: string, call: () => Promise<T>): Promise<T> {
  return without(
    () =>
      r.ctx.control.setKeyScopes(
        key.keyId,
        key.scopes.filter((s) => s !== scope),
      ),
    () => r.ctx.control.setKeyScopes(key.keyId, key.scopes),
    call,
  );
}

const judge = (r: Runner, ...clauses: string[]): void => {
  for (const c of clauses) {
    r.ctx.judged(c);
    r.looked.add(c);
  }
};

/**
 * A live CRM read by the submitting key (crm:read). With `withheld`, crm:read is taken from the
 * key between two reads: the read in between is refused with 403 (SCOPE-006; the grant read on
 * the request, GRANT-002), the one after the scope came back is not (GRANT-002). Then a walk:
 * the definitions are as the model holds them (a read changes nothing, SVC-005).
 */
export async function crmRead(r: Runner, c: { op: number; withheld: boolean }, walk: () => Promise<unknown>): Promise<void> {
  const op = r.operator;
  if (!op || op.keyId === undefined) return;
  const operation = QUERY_OPERATIONS[c.op % QUERY_OPERATIONS.length]!;
  const found = await shapeOf(r, operation, op, async () => {
    const catalog = await send(r, { method: 'GET', path: '/capabilities', key: op });
    return queryShapesFor(operation, is2xx(catalog) ? fieldsIn(catalog.response?.json, operation) : []);
  });
  if (!found) return;
  const query = (): Promise<Exchange> => send(r, { ...found.shape, key: op });
  if (!found.accepted) {
    const ex = await query();
    if (is2xx(ex)) r.metered.push(ex);
  }
  if (c.withheld) {
    const refused = await withoutScope(r, { ...op, keyId: op.keyId }, 'crm:read', query);
    judge(r, 'SCOPE-006', 'GRANT-002');
    if (refused.response?.status !== 403) {
      if (is2xx(refused)) r.metered.push(refused);
      r.ctx.softFail({
        clause: 'GRANT-002',
        message: `with crm:read taken from the key just before, the next ${operation} read was not refused`,
        expected: '403',
        received: answer(refused),
        exchange: refused,
      });
      fail('SCOPE-006', `POST /query (${operation}) by a key without crm:read was not refused with 403`, '403 FORBIDDEN', answer(refused), refused);
    }
    const back = await query();
    if (is2xx(back)) r.metered.push(back);
    else if (back.response?.status === 403) fail('GRANT-002', `with crm:read given back, the next ${operation} read was still refused`, 'the read as before the scope went (2xx)', answer(back), back);
  }
  try {
    await walk();
  } catch (e) {
    if (!(e instanceof Finding)) throw e;
    throw new Finding({ ...e.evidence, clause: 'SVC-005', message: `after a live CRM read (${operation}), ${e.evidence.message}` });
  }
  judge(r, 'SVC-005');
}

/**
 * A bulk compute run by the submitting key (admin, held by an owner): accepted, and polled until
 * it answers (OPS-012, free: BILL-005). With `ladder`, then: the admin scope taken from the key
 * for one call, refused with 403 (SCOPE-009, GRANT-002); given back, a run accepted (ROLE-002,
 * GRANT-002); the holder moved to the analyst role for one call, refused with 403 (ROLE-001; at
 * once, ROLE-005); moved to the admin role for one run, accepted (ROLE-002); moved back.
 */
export async function computeRun(r: Runner, m: Model, c: { ladder: boolean }): Promise<void> {
  const op = r.operator;
  if (!op || op.keyId === undefined || !op.userId) return;
  const found = await shapeOf(r, 'compute', op, async () => computeRunShapes());
  if (!found) return;
  const start = async (): Promise<Exchange> => {
    const ex = await send(r, { ...found.shape, key: op });
    if (is2xx(ex)) r.metered.push(ex);
    return ex;
  };
  // Accepted before from this key, the same request refused now by an owner's or admin's admin key.
  const accepted = async (ex: Exchange, who: string): Promise<void> => {
    judge(r, 'ROLE-002');
    if (ex.response?.status === 403) fail('ROLE-002', `POST /compute/runs by ${who} admin key was refused`, '2xx, as before', answer(ex), ex);
    await pollRun(r, m, ex);
  };
  const refused = (ex: Exchange, clauses: readonly [string, string], why: string): void => {
    judge(r, ...clauses);
    if (ex.response?.status === 403) return;
    r.ctx.softFail({ clause: clauses[1], message: 'the grant or role taken away just before, the next compute run was not refused', expected: '403', received: answer(ex), exchange: ex });
    fail(clauses[0], `POST /compute/runs ${why} was not refused with 403`, '403 FORBIDDEN', answer(ex), ex);
  };
  if (found.accepted) await pollRun(r, m, found.accepted);
  else await accepted(await start(), "an owner's");
  if (!c.ladder) return;
  const keyId = op.keyId;
  const userId = op.userId;
  const ws = r.ctx.workspaceId;
  const setRole = (role: typeof op.role) => () => r.ctx.control.setMemberRole(ws, userId, role);
  const owner = setRole(op.role);
  refused(await withoutScope(r, { ...op, keyId }, 'admin', start), ['SCOPE-009', 'GRANT-002'], 'by a key without the admin scope');
  await accepted(await start(), "an owner's (the scope given back)");
  // Analyst for one call, then admin for one, then back: the holder goes from analyst straight
  // to admin (no API call comes between, so a stop at owner there would show the target nothing).
  let asAdmin: Exchange;
  await setRole('analyst')();
  try {
    refused(await start(), ['ROLE-001', 'ROLE-005'], 'by a key holding admin whose holder was just moved to the analyst role');
    await setRole('admin')();
    asAdmin = await start();
  } catch (e) {
    await owner();
    throw e;
  }
  // The holder's role goes back while the run started as admin is judged and polled: an
  // owner's key and an admin's may poll it alike. Both are done before the next step.
  const [restored, judgedRun] = await Promise.allSettled([owner(), accepted(asAdmin, "a workspace admin's")]);
  if (judgedRun.status === 'rejected') throw judgedRun.reason;
  if (restored.status === 'rejected') throw restored.reason;
}

/** A started run (2xx) polled until it answers 2xx, its id kept for later polls. */
async function pollRun(r: Runner, m: Model, started: Exchange): Promise<void> {
  if (!is2xx(started)) return;
  const id = findResourceId(started);
  if (id === undefined) return;
  m.computeRuns.push(id);
  return computePoll(r, id);
}

/** One poll of a compute run the sequence started (free): 2xx within the bound (OPS-012). */
export async function computePoll(r: Runner, id: string): Promise<void> {
  const op = r.operator;
  if (!op) return;
  const path = `/compute/runs/${encodeURIComponent(id)}`;
  const polled = await pollUntil(r.ctx, op, path, is2xx, RUN_BOUND_MS);
  r.log.push(...polled.polls);
  judge(r, 'OPS-012');
  if (!polled.satisfied) fail('OPS-012', `the compute run ${id} did not answer 2xx at GET ${path}`, '2xx with the run', answer(polled.last), polled.last);
}
