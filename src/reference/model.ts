/**
 * The in-memory records of the reference target. Everything a workspace owns hangs off its
 * {@link Workspace}, so deleting a workspace drops it all and no lookup can cross workspaces.
 */
import type { CapabilityName } from '../control/types.ts';
import type { Role, Scope } from '../vocabulary.ts';

export const CAPABILITY_NAMES: readonly CapabilityName[] = [
  'definitions',
  'graphReads',
  'graphEdits',
  'context',
  'research',
  'enrichment',
  'crm',
  'workflows',
  'automaticCapture',
  'relationEditing',
  'graphCompute',
];

export interface Member {
  userId: string;
  role: Role;
}

export interface ApiKey {
  keyId: string;
  secret: string;
  workspaceId: string;
  userId: string;
  scopes: Scope[];
  state: 'enabled' | 'disabled' | 'revoked';
}

export interface EnumValue {
  label: string;
  slug: string;
  description?: string;
  color?: string;
  archived: boolean;
}

export interface Definition {
  id: string;
  workspace_id: string;
  name: string;
  slug: string;
  description: string | null;
  module_key: string;
  entity_kinds: string[];
  value_type: string;
  cardinality: string | null;
  enum_values: EnumValue[];
  instruction: string | null;
  refresh_policy: string;
  capture_enabled: boolean;
  auto_apply_threshold: number;
  review_threshold: number;
  chat_visible: boolean;
  state: string;
  est_credits_low: number | null;
  est_credits_high: number | null;
  last_run_credits: number | null;
  created_by: string | null;
  reason: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** A stored definition plus its revision counter (for decision-input references). */
export interface DefinitionRecord {
  def: Definition;
  revision: number;
  /** When (epoch ms) a definition still in its first state `from` (a variant's choice) moves to the initial state. */
  settlesAt?: { at: number; from: string };
  /** When (epoch ms) the estimates are filled in (a variant's background estimating). */
  estimatesAt?: number;
}

export interface Account {
  id: string;
  name: string | null;
  domain: string | null;
  firmographics: Record<string, string | number | null>;
  /** Context areas with their add-only associations. */
  context: Record<string, string[]>;
  createdAt: string;
  updatedAt: string;
}

export interface Person {
  id: string;
  name: string | null;
  createdAt: string;
}

/** The account-membership record of a person (distinct from the canonical person). */
export interface AccountPerson {
  id: string;
  accountId: string;
  personId: string;
  fields: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
}

/** A label: a definition's enum value assigned to an account or account person. */
export interface LabelAssignment {
  id: string;
  definitionId: string;
  entityKind: 'account' | 'contact';
  entityId: string;
  slug: string;
  definitionRevision: number;
  at: string;
}

export type ReceiptStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'partial' | 'needs_review';

export interface Receipt {
  id: string;
  operation: string;
  status: ReceiptStatus;
  reason: string;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  result: unknown;
  error: { code: string; message: string } | null;
}

/** What the executor needs to run a queued operation later. */
export interface QueuedOperation {
  receipt: Receipt;
  keyId: string;
  args: unknown;
  /** GET /operations/{id} calls so far (a variant completes receipts only after a few polls). */
  polls: number;
  /** Epoch ms before which no poll runs it (a variant's slow operations; 0: any time). */
  dueAt: number;
}

export interface ComputeRun {
  id: string;
  job: string;
  status: 'queued' | 'succeeded' | 'failed';
  reason: string;
  accounts: number;
  createdAt: string;
  completedAt: string | null;
  result: unknown;
}

export interface TraceEvent {
  revision: number;
  at: string;
  action: string;
  actor: string | null;
  markers: string[];
  trace: Record<string, unknown>;
  /** For label decisions: the definition and revision they were made against. */
  against?: { definitionId: string; revision: number; slug: string; entityId: string };
}

export interface LedgerEntry {
  seq: number;
  method: string;
  path: string;
  status: number;
  credits: number;
  surface: string;
}

export interface StoredReply {
  fingerprint: string;
  status: number;
  body: string;
  /** Headers replayed with the body (e.g. Location), when the reply had any. */
  headers?: Record<string, string>;
}

export interface Workspace {
  id: string;
  apiAccess: boolean;
  balance: number;
  charged: number;
  ledger: LedgerEntry[];
  members: Map<string, Member>;
  capabilities: Record<CapabilityName, boolean>;
  rateLimit: { rpm: number | null; hits: number[] };
  /** Operations execute when not held (control extension). */
  holdExecution: boolean;
  definitions: Map<string, DefinitionRecord>;
  /** Definition slugs taken in the workspace, and the next suffix to try per base slug. */
  definitionSlugs: { taken: Set<string>; next: Map<string, number> };
  accounts: Map<string, Account>;
  people: Map<string, Person>;
  accountPeople: Map<string, AccountPerson>;
  labels: Map<string, LabelAssignment>;
  operations: Map<string, QueuedOperation>;
  computeRuns: Map<string, ComputeRun>;
  /** Trace events by "kind:id". */
  traces: Map<string, TraceEvent[]>;
  /** Simulated partner CRM records by "object:id" (written only by crm.* mutations). */
  crm: Map<string, Record<string, unknown>>;
  /** Stored idempotent replies by "holder\u0000idempotencyKey" (holder: the member's userId, or "*" workspace-wide). */
  idempotency: Map<string, StoredReply>;
}
