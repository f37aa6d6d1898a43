/**
 * The shape of a catalog operation (seed 4.8): its permissions, the capability it needs, its
 * documented arguments (published by GET /capabilities), and how it is prepared at submission
 * and executed later.
 */
import type { CapabilityName } from '../control/types.ts';
import type { Role, Scope } from '../vocabulary.ts';
import { requireRole, requireScopes, type Principal } from './auth.ts';
import { forgets, type FaultSet } from './faults.ts';
import type { ReceiptStatus, Workspace } from './model.ts';
import type { Store } from './store.ts';
import type { Relax } from './validate.ts';

/** One documented argument. */
export interface ArgDoc {
  name: string;
  type: string;
  required: boolean;
  notes: string;
}

/** What an operation sees at submission. */
export interface PrepareCtx {
  ws: Workspace;
  store: Store;
  faults: FaultSet;
  relax: Relax;
}

/** What an operation sees when it runs. */
export interface ExecCtx {
  ws: Workspace;
  store: Store;
  faults: FaultSet;
  actor: string;
  reason: string;
}

export interface Outcome {
  status: ReceiptStatus;
  result: unknown;
}

export interface OpDef<A = unknown> {
  name: string;
  purpose: string;
  scopes: readonly Scope[];
  /** Workspace roles allowed; undefined: any role. */
  roles?: readonly Role[];
  capability: CapabilityName;
  /** Permission rules beyond scopes and roles, in words (published in the catalog). */
  permissionNotes?: string;
  arguments: readonly ArgDoc[];
  /** Change kinds (graph edits only). */
  changeKinds?: readonly { kind: string; fields: readonly string[]; notes: string }[];
  /** Validates the arguments against the workspace; throws 400 or 404. */
  prepare(ctx: PrepareCtx, args: unknown): A;
  /** Permissions that depend on the arguments; throws 403. */
  permit?(p: Principal, args: A, faults: FaultSet): void;
  /** Runs the operation synchronously. */
  execute(ctx: ExecCtx, args: A): Outcome;
}

/** Throws 403 unless the caller may run `op` with these (prepared) arguments. */
export function checkPermission(p: Principal, op: OpDef, args: unknown, faults: FaultSet): void {
  // A rule-cells fault may forget the scope check on this one operation.
  if (!forgets(faults, 'scopes', `api:operations.${op.name}`)) requireScopes(p, op.scopes, faults, op.name);
  if (op.name === 'graph.agent_preview' && faults.has('preview-needs-admin-scope')) requireScopes(p, ['admin'], faults, op.name);
  if (op.roles) requireRole(p, op.roles, op.name, faults);
  if (args !== undefined) op.permit?.(p, args, faults);
}

/** Sorts an operation definition's generic type away (for registries). */
export const defineOp = <A>(op: OpDef<A>): OpDef => op as unknown as OpDef;
