/**
 * The usage ledger (seed part 8, billing). The server calls {@link charge} at exactly one
 * place, after a 2xx response of a billable route that was not an idempotent replay.
 */
import type { Workspace } from './model.ts';

/** What one charge records. */
export interface Charge {
  method: string;
  path: string;
  status: number;
  credits: number;
  /** What ran, e.g. "api:definitions.create" or "api:operations.graph.agent_preview". */
  surface: string;
}

/** Appends a ledger entry (a free submission's too, at 0 credits: usage is recorded by what ran) and takes the credits from the balance (which may go negative). */
export function charge(ws: Workspace, c: Charge): void {
  // Stryker disable next-line ArithmeticOperator: equivalent: seq only orders and tells entries apart (control protocol), which any increasing start does
  ws.ledger.push({ seq: ws.ledger.length + 1, ...c });
  ws.charged += c.credits;
  ws.balance -= c.credits;
}
