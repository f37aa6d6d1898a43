/**
 * The check model. A check is a small async function that verifies one or more clauses
 * against a target; a suite is a named list of checks plus the cast of keys it needs.
 * Suite files only enumerate checks; the engine runs them the same way under vitest
 * (suites/*.test.ts) and in-process (fault self-test, benchmark).
 */
import type { ApiClient } from '../http/api.ts';
import type { CastMember, KeyHandle } from '../vocabulary.ts';
import type { CheckResult, ScenarioStep } from './result-schema.ts';

export { ROLES, SCOPES, type CastMember, type KeyHandle, type Role, type Scope } from '../vocabulary.ts';
export type { ApiClient, ApiRequest } from '../http/api.ts';

/** What the check needs from the target beyond its cast; unmet needs make it not observable or disabled. */
export interface CheckNeeds {
  /** Needs the test-control protocol (provisioning, revocation, pausing, rate limits...). */
  control?: boolean;
  /** Needs the usage ledger. */
  ledger?: boolean;
  /** Sends mutations: disabled by --read-only. */
  mutation?: boolean;
}

export interface CheckDef {
  /** Stable id, "<suite>/<kebab-name>", unique across all suites. */
  id: string;
  /** What the check verifies, as a short sentence. */
  title: string;
  /** Clause ids this check verifies (every one must exist in the catalog). */
  clauses: readonly string[];
  needs?: CheckNeeds;
  /**
   * Exactly the credits the check is charged (2xx billable calls and the fees the target
   * charges with them, in every workspace it touches) on a conformant target that reads the
   * seed as the reference target does, with the workspace the suite provisioned (test-control
   * protocol) and mutations allowed. The run's credit plan is their sum, and `npm test`
   * (test/reference/credit-plan.test.ts) holds it to what the ledgers charge. A function
   * receives the run's property-run count. Leave it out to plan the check from the measured
   * plan (specs/credit-plan.json, `npm run credit-plan`; src/engine/measured-credits.ts)
   * instead of adding up its billed calls by hand.
   */
  credits?: CreditCount;
  /**
   * The most the check may be charged on any conformant target, where its spending can
   * legitimately vary: another allowed behaviour (a refused write the reference accepts, a
   * fee charged on top, a walk that ends on an empty page), a workspace the suite did not
   * provision (walks over more data), a failure path. `--max-credits` admits checks by this
   * ceiling. Default: `credits`; never below it.
   */
  maxCredits?: CreditCount;
  /**
   * A ceiling the check shares with others (the parts of one check played side by side, which
   * share one allowance of shrinking): the run's ceiling counts at most `maxCredits` of the
   * pool for all of its checks together, each still at most its own `maxCredits`.
   */
  creditPool?: CreditPool;
  /**
   * The endpoints (operationIds of specs/openapi.yaml) on which the check judges its clauses;
   * "every" for all of them. The rule × endpoint table of docs/coverage.md is read from these,
   * and test/reference/credit-plan.test.ts holds each to the requests the check sends against
   * the reference. Per clause where the check judges its clauses on different endpoints.
   * Leave it out where the check judges no per-endpoint rule.
   */
  endpoints?: Endpoints | Readonly<Record<string, Endpoints>>;
  run(ctx: CheckContext): Promise<void>;
}

/** A ceiling shared by several checks (CheckDef.creditPool): one object, held by each of them. */
export interface CreditPool {
  /** Names the pool in the plan and in messages. */
  id: string;
  maxCredits: CreditCount;
}

/** Endpoints a check judges a clause on: operationIds of specs/openapi.yaml, "every", or every one but some. */
export type Endpoints = 'every' | readonly string[] | { readonly except: readonly string[] };

/** A credit figure: fixed, or a function of the run's property-run count. */
/** Credits as a number, or of the run's property-run count and seed (for spending that depends on the values drawn). */
export type CreditCount = number | ((numRuns: number, seed: number) => number);

export interface SuiteDef {
  /** Suite name, as used by --suite: auth, scopes, roles, idempotency, pagination, billing, errors, definitions, operations. */
  name: string;
  title: string;
  /** The keys the suite needs, by cast name. Provisioned per suite (own workspace) with control. */
  cast: Record<string, CastMember>;
  checks: readonly CheckDef[];
  /**
   * Groups of the suite's checks that run side by side with the rest, each group in a
   * workspace of its own with the same cast (test-control protocol), its checks in the order of
   * `checks`; the checks of no group run in the suite's workspace. A group holds checks that
   * neither read what the suite's other checks leave nor leave what they read. Without the
   * protocol (supplied keys, one workspace) every check runs in the order of `checks`.
   */
  lanes?: readonly (readonly CheckDef[])[];
}

/** The usage ledger of the check's workspace (control protocol). */
export type { Ledger, LedgerEntry, LedgerService } from './ledger.ts';

/** Run-wide facts a check may read. */
export interface RunInfo {
  /** Prefix for every record the run creates, e.g. "wgc-1a2b3c-". */
  prefix: string;
  seed: number;
  numRuns: number;
  readOnly: boolean;
  hasControl: boolean;
  /**
   * Others may write to the workspace while the check runs: without the test-control protocol
   * every suite shares the supplied keys' workspace with the other suites of the run and with
   * whoever else uses it. With it, a suite's workspace is its own and its checks run one at a
   * time. Checks judge a whole listing only where this is false; where it is true they judge
   * what holds whatever else appears or disappears (the check's own records, items seen before
   * and after).
   */
  sharedWorkspace: boolean;
  /**
   * Multiplier of every wait for an asynchronous effect the document sets no time for (--patience,
   * default 1): scale such bounds with `waitBound` (src/engine/waits.ts).
   */
  patience: number;
}

export interface CheckContext {
  readonly run: RunInfo;
  readonly api: ApiClient;
  /** The key filling a cast role; throws NotObservable when the target cannot supply one. */
  key(castName: string): KeyHandle;
  /** The test-control client for the suite's workspace; throws NotObservable without control. */
  readonly control: import('../control/types.ts').ControlApi;
  /** The suite's workspace id (from control, or from GET /me of the first key). */
  readonly workspaceId: string;
  readonly ledger: import('./ledger.ts').LedgerService;
  /** Registers teardown work (archive created records, delete extra members...). */
  cleanup(fn: () => Promise<void>): void;
  /**
   * Records a finding without stopping the check, for checks that verify several independent
   * clauses: that clause fails, the check goes on, and the others can still pass.
   */
  softFail(evidence: import('./finding.ts').Evidence): void;
  /**
   * Says that this run of the check could not judge `clause` (it saw nothing to judge it on,
   * or lacked what judging it needs): unless a finding failed it, the clause ends not
   * observable with `reason` while the check's other clauses keep their verdicts. A check never
   * passes a clause it judged nothing of.
   */
  unobserved(clause: string, reason: string): void;
  /**
   * Counts a judgement of `clause` (n of them): a condition of it was looked at and held. The
   * shared expectations (src/engine/expect.ts) count theirs; a check that judges by hand calls
   * this where it does. A clause judged zero times ends not observable, never passed
   * (src/engine/judged.ts).
   */
  judged(clause: string, n?: number): void;
  /**
   * Keeps what the check saw of the target for the report, beside the verdicts (the live
   * catalog GET /capabilities served: report.json meta.liveCatalog, compared by `wgc diff`).
   */
  note(observed: { liveCatalog?: import('../target/live-catalog.ts').LiveCatalog }): void;
  /**
   * Existing records named by the target profile (for targets without control); empty with
   * control, where checks create their own records.
   */
  readonly fixtures: { readonly accountId?: string; readonly accountPersonId?: string };
  /**
   * Registers a credential the check made up (a forged or altered key) so that it is redacted
   * wherever it appears, exactly like a real secret.
   */
  registerSecret(secret: string, label: string): void;
}

/** One request of a check's scenario (declared in result-schema.ts). */
export type { ScenarioStep };

/** What one check concluded, per clause (declared in result-schema.ts, with what each field means). */
export type { CheckResult };
