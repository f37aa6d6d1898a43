/**
 * The contract between the request pipeline (server.ts) and the endpoint modules. Handlers
 * are synchronous on purpose: once a request's body is read, lookup, execution, idempotency
 * storage and billing happen in one turn of the event loop, so concurrent requests cannot
 * interleave inside one of them.
 */
import type { CapabilityName } from '../control/types.ts';
import type { Role, Scope } from '../vocabulary.ts';
import type { Principal } from './auth.ts';
import type { FaultSet } from './faults.ts';
import type { Workspace } from './model.ts';
import type { Query } from './query.ts';
import type { Store } from './store.ts';
import type { Relax } from './validate.ts';

/** Runs queued operations and compute runs later (see executor.ts). */
export interface Scheduler {
  /** Queues an operation receipt or compute run to run soon (unless execution is held). */
  schedule(ws: Workspace, id: string): void;
  /** Runs a queued item now (unless execution is held). */
  runNow(ws: Workspace, id: string): void;
}

/** Everything a handler may use. */
export interface Ctx {
  readonly store: Store;
  readonly p: Principal;
  readonly ws: Workspace;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Query;
  /** Parsed JSON body (an object) for routes with `body: true`; undefined otherwise. */
  readonly body: unknown;
  readonly faults: FaultSet;
  /** Validation issues named faults let through on this route (undefined without faults). */
  readonly relax: Relax;
  readonly scheduler: Scheduler;
}

/** A successful reply. */
export interface Reply {
  status: number;
  body: unknown;
  /** Credits of this call when billed (default 1). */
  credits?: number;
  /** Surface name in the ledger when it depends on the request (default: the route's). */
  surface?: string;
  /** Further charges of the same call, each its own ledger entry (e.g. a fee charged on top). */
  extraCharges?: readonly { credits: number; surface: string }[];
  /** Extra response headers (e.g. Location). */
  headers?: Record<string, string>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH';
  /** Path under /api/v1, with ":name" segments. */
  pattern: string;
  /** Ledger surface, "api:<what ran>". */
  surface: string;
  /** Charged 1 credit on a 2xx (seed part 8); false for the free endpoints. */
  billable: boolean;
  /** Scopes checked before the body is read. */
  scopes?: readonly Scope[];
  /** Workspace roles checked before the body is read. */
  roles?: readonly Role[];
  /** The capability switch (GET /me capabilities) the route needs; off gives 503. */
  capability?: CapabilityName;
  /** Reads a JSON object body. */
  body?: boolean;
  /** Accepts an Idempotency-Key (seed 4.1). */
  idempotent?: boolean;
  /** Checks that depend on the body (e.g. per-operation permissions); may throw 403 or 503. */
  authorize?(ctx: Ctx): void;
  handle(ctx: Ctx): Reply;
}
