/**
 * Permission rows of catalog operations submitted through POST /operations (seed 4.8 and the
 * part 5 table): graph.agent_preview and graph.agent_run (graph:read, graph:write,
 * research:run) and graph.apply_update (graph:write). The fully permitted key establishes the
 * request first; submissions from keys lacking a scope must leave no receipt and, for the edit,
 * no changed value.
 */
import type { CheckContext, CheckDef, KeyHandle, Scope } from '../../src/engine/check.ts';
import { judgeSweep, sweep, type Attempt, type Expectation } from '../_shared/access-judge.ts';
import { receiptIds } from './readback.ts';
import { applyUpdateOf, establish, previewOf, runOf, type Send } from '../_shared/access-shapes.ts';
import { holdsAll } from '../_shared/access-cast.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief } from '../_shared/json.ts';
import { AGENT_CALL_CREDITS, AGENT_CALL_MAX_CREDITS, makeAccount, type AccountFixture } from '../_shared/ops-fixtures.ts';
import { byScopes, castHolding, catalogScopes, fullKey, split } from './matrix.ts';
import { expectNoReceipt, markerFor, NO_TRACE } from './untouched.ts';

interface OperationRow {
  name: string;
  row: string;
  /** Builds the submission once the account fixture exists. */
  send(ctx: CheckContext, fx: AccountFixture): Send;
  expect?(required: readonly Scope[]): (key: KeyHandle) => Expectation;
  letThrough?(key: KeyHandle): string;
  /** After the refused sweep: reads back what a refused submission could have changed. */
  readBack?(ctx: CheckContext, full: KeyHandle, fx: AccountFixture, refused: readonly Attempt[]): Promise<void>;
}

/** Establish with the full key, refused sweep, receipts compared, read-back, permitted sweep, judgement. */
async function runOperationRow(ctx: CheckContext, r: OperationRow): Promise<void> {
  const required = await catalogScopes(r.name);
  const expectOf = r.expect?.(required) ?? byScopes(required);
  const full = fullKey(ctx);
  const { refused, permitted } = split(ctx, required, r.name);
  const fx = await makeAccount(ctx, 'scopes-op');
  const send = r.send(ctx, fx);
  const established = await establish(full, [send], r.row, r.name);
  const before = await receiptIds(ctx, full);
  // Refused submissions change nothing: they go together. The permitted ones go one after
  // another (each edits or researches the same account).
  const refusedAttempts = await sweep(refused, expectOf, send, { together: true });
  const after = await receiptIds(ctx, full);
  expectNoReceipt(ctx, refusedAttempts, before, after, r.name);
  await r.readBack?.(ctx, full, fx, refusedAttempts);
  const permittedAttempts = await sweep(
    permitted.filter((k) => k !== full),
    expectOf,
    send,
  );
  const all = [{ key: full, expect: 'allow' as const, ex: established.accepted }, ...refusedAttempts, ...permittedAttempts];
  judgeSweep(ctx, all, { row: r.row, forbidden: 'ERR-007', ...(r.letThrough ? { letThrough: r.letThrough } : {}) }, `POST /operations ${r.name}`);
}

/** The admin scope does not stand in for the agent scopes: an admin key let through is a SCOPE-010 finding. */
const adminImplies = (row: string) => (key: KeyHandle) => (key.scopes.includes('admin') ? 'SCOPE-010' : row);

/** graph.agent_preview of one control-made account. */
export const agentPreview: CheckDef = {
  id: 'scopes/agent-preview',
  title: 'graph.agent_preview is let through with graph:read, graph:write and research:run and refused with 403 missing any, leaving no receipt',
  clauses: ['SCOPE-007', 'SCOPE-010', 'SCOPE-012', 'ERR-007'],
  endpoints: ['submitOperation'],
  needs: { mutation: true, control: true },
  // One accepted preview per key holding the three scopes; the others are refused (free).
  credits: castHolding(['graph:read', 'graph:write', 'research:run']) * AGENT_CALL_CREDITS,
  // Its fee charged on top.
  maxCredits: castHolding(['graph:read', 'graph:write', 'research:run']) * AGENT_CALL_MAX_CREDITS,
  run: (ctx) => runOperationRow(ctx, { name: 'graph.agent_preview', row: 'SCOPE-007', send: (ctx, fx) => previewOf(ctx, fx.accountId), letThrough: adminImplies('SCOPE-007') }),
};

/** graph.agent_run of one control-made account (no fields selected: nothing of the account is at stake). */
export const agentRun: CheckDef = {
  id: 'scopes/agent-run',
  title: 'graph.agent_run is let through with graph:read, graph:write and research:run and refused with 403 missing any, leaving no receipt',
  clauses: ['SCOPE-008', 'SCOPE-010', 'SCOPE-012', 'ERR-007'],
  endpoints: ['submitOperation'],
  needs: { mutation: true, control: true },
  // One accepted run per key holding the three scopes; the others are refused (free).
  credits: castHolding(['graph:read', 'graph:write', 'research:run']) * AGENT_CALL_CREDITS,
  // Its submission fee charged on top.
  maxCredits: castHolding(['graph:read', 'graph:write', 'research:run']) * AGENT_CALL_MAX_CREDITS,
  run: (ctx) => runOperationRow(ctx, { name: 'graph.agent_run', row: 'SCOPE-008', send: runOf, letThrough: adminImplies('SCOPE-008') }),
};

/**
 * Seed 4.8 gives graph.apply_update "graph:write; graph:read for reads": a key with graph:write
 * but without graph:read may be let through or refused. Without graph:write it is refused.
 */
const applyUpdateExpect =
  (required: readonly Scope[]) =>
  (key: KeyHandle): Expectation =>
    !holdsAll(key, required) ? 'refuse' : key.scopes.includes('graph:read') ? 'allow' : 'either';

/** The title each key's edit writes: unique, so a refused edit that took effect can be seen. */
function titles(ctx: CheckContext): (key: KeyHandle) => string {
  const by = new Map<string, string>();
  return (key) => {
    if (!by.has(key.name)) by.set(key.name, markerFor(ctx, key, 'title'));
    return by.get(key.name)!;
  };
}

/** graph.apply_update of a person_field (title) change on a control-made account person. */
export const applyUpdate: CheckDef = {
  id: 'scopes/apply-update',
  title: 'graph.apply_update is refused with 403 without graph:write, leaving no receipt and no changed value',
  clauses: ['SCOPE-011', 'SCOPE-012', 'ERR-007'],
  endpoints: ['submitOperation'],
  needs: { mutation: true, control: true },
  // An accepted edit per key holding graph:write (the reference also lets through those
  // without graph:read, which 4.8 leaves open: a target refusing them charges less), and two
  // reads of the person and the account.
  credits: castHolding(['graph:write']) + 2,
  async run(ctx) {
    const titleOf = titles(ctx);
    await runOperationRow(ctx, {
      name: 'graph.apply_update',
      row: 'SCOPE-011',
      expect: applyUpdateExpect,
      send: (ctx, fx) => applyUpdateOf(ctx, fx, titleOf),
      readBack: async (ctx, full, fx, refused) => {
        // Every edit from a key lacking graph:write must have been refused, whatever it was answered.
        if (refused.length === 0) return;
        const reads = [
          await ctx.api.send({ method: 'GET', path: `/data/people/${fx.personId}`, key: full }),
          await ctx.api.send({ method: 'GET', path: `/data/accounts/${fx.accountId}`, key: full }),
        ].filter(is2xx);
        const shown = reads.map((ex) => ex.response!.text).join('\n');
        if (reads.length > 0) ctx.judged(NO_TRACE);
        const leaked = refused.filter((a) => shown.includes(JSON.stringify(titleOf(a.key))));
        if (leaked.length === 0) return;
        ctx.softFail({
          clause: NO_TRACE,
          message: `graph.apply_update: edits from keys lacking graph:write took effect: ${leaked.map((a) => `${a.key.name} (${a.ex.response?.status}) wrote "${titleOf(a.key)}"`).join(', ')}`,
          expected: 'no value written by an edit lacking graph:write',
          received: brief(reads[0]?.response?.json, 600),
          exchange: leaked[0]!.ex,
          context: reads,
        });
      },
    });
  },
};
