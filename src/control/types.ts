/**
 * Typed view of the test-control protocol, version 1 (../shared/control-protocol.md,
 * encoded in specs/control-openapi.yaml). Implemented by ControlClient in client.ts.
 */
import type { Role, Scope } from '../vocabulary.ts';

export interface UsageLedger {
  balance: number;
  charged: number;
  entries: { seq: number; method: string; path: string; status: number; credits: number; surface: string }[];
}

/** A label as the control protocol's GET /workspaces/{ws}/labels lists it (an addition to version 1). */
export interface ControlLabel {
  labelId: string;
  definitionId: string;
  entityKind: 'account' | 'contact';
  entityId: string;
  slug: string;
}

export type CapabilityName = 'definitions' | 'graphReads' | 'graphEdits' | 'context' | 'research' | 'enrichment' | 'crm' | 'workflows' | 'automaticCapture' | 'relationEditing' | 'graphCompute';

/** A member to make with a workspace (the cast addition): its role, and the scopes of the key it is given. */
export interface CastRequest {
  role: Role;
  scopes: readonly Scope[];
}

/** A member made with its workspace, in the order asked for. */
export interface CastAnswer {
  userId: string;
  keyId: string;
  secret: string;
}

/** Every control call throws ControlError on a non-success status: that is a harness problem, not a finding. */
export interface ControlApi {
  info(): Promise<{ protocol: string; version: number }>;
  /**
   * A new workspace. With `members` (the cast addition, docs/control-protocol-additions.md) a
   * target that offers it also makes those members and their keys, and answers them in the same
   * order; one that does not answers the workspace alone (no `members`): the caller then makes
   * them one call at a time.
   */
  createWorkspace(credits?: number, members?: readonly CastRequest[]): Promise<{ workspaceId: string; members?: CastAnswer[] }>;
  deleteWorkspace(ws: string): Promise<void>;
  pauseWorkspace(ws: string): Promise<void>;
  resumeWorkspace(ws: string): Promise<void>;
  addMember(ws: string, role: Role): Promise<{ userId: string }>;
  setMemberRole(ws: string, userId: string, role: Role): Promise<void>;
  removeMember(ws: string, userId: string): Promise<void>;
  createKey(ws: string, userId: string, scopes: readonly Scope[]): Promise<{ keyId: string; secret: string }>;
  setKeyScopes(keyId: string, scopes: readonly Scope[]): Promise<void>;
  revokeKey(keyId: string): Promise<void>;
  disableKey(keyId: string): Promise<void>;
  enableKey(keyId: string): Promise<void>;
  usage(ws: string): Promise<UsageLedger>;
  setRateLimit(ws: string, requestsPerMinute: number | null): Promise<void>;
  setCapabilities(ws: string, switches: Partial<Record<CapabilityName, boolean>>): Promise<void>;
  createAccount(ws: string, body?: { name?: string; domain?: string }): Promise<{ accountId: string }>;
  createPerson(ws: string, accountId: string, body?: { name?: string; title?: string }): Promise<{ personId: string; accountPersonId: string }>;
  /** Additions to version 1 (a target may not offer them: 404). The entity carries that value of the definition. */
  setLabel(ws: string, label: Omit<ControlLabel, 'labelId'>): Promise<{ labelId: string }>;
  /** Every label of the workspace. */
  labels(ws: string): Promise<{ labels: ControlLabel[] }>;
}
