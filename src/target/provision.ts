/**
 * Provisioning with the control protocol: each suite gets its own workspace (so suites can run
 * in parallel without seeing each other's records), one member per cast name and a key with
 * exactly the cast's scopes. Teardown deletes the workspace and everything in it.
 */
import type { CastMember, KeyHandle, Role } from '../vocabulary.ts';

/** What provisioning reads of a suite: its name and its cast. */
export interface SuiteCast {
  name: string;
  cast: Record<string, CastMember>;
}
import type { ControlApi } from '../control/types.ts';

export interface ProvisionedSuite {
  workspaceId: string;
  /** Cast name → its key. */
  keys: Map<string, KeyHandle>;
  /** Deletes the workspace (idempotent). */
  teardown(): Promise<void>;
}

export interface ProvisionOptions {
  /** Usage balance of the new workspace; default: the control protocol's default. */
  credits?: number;
}

/** Roles that can be given a key (control protocol "Roles"); others are reached by a role change. */
const KEY_HOLDING_ROLES: readonly Role[] = ['owner', 'admin', 'analyst'];

/**
 * Creates the suite's workspace, members and keys (in parallel). On any failure the workspace
 * is deleted again and the error is rethrown, naming the suite, the run prefix and the step.
 */
export async function provisionSuite(suite: SuiteCast, control: ControlApi, prefix: string, opts: ProvisionOptions = {}): Promise<ProvisionedSuite> {
  const failed = (e: unknown): Error => new Error(`provisioning suite "${suite.name}" (run prefix ${prefix}) failed: ${(e as Error).message}`, { cause: e });
  let workspaceId: string;
  try {
    ({ workspaceId } = await control.createWorkspace(opts.credits));
  } catch (e) {
    throw failed(e);
  }
  let deleted: Promise<void> | undefined;
  const teardown = (): Promise<void> => (deleted ??= control.deleteWorkspace(workspaceId));
  try {
    const entries = await Promise.all(
      Object.entries(suite.cast).map(async ([castName, member]): Promise<[string, KeyHandle]> => {
        const role = (Array.isArray(member.role) ? member.role[0] : member.role) as Role | undefined;
        if (!role) throw new Error(`cast member "${castName}" names no role`);
        // A "member" cannot be given a key: create it as an analyst, then move it (control protocol, Roles).
        const initial: Role = KEY_HOLDING_ROLES.includes(role) ? role : 'analyst';
        const { userId } = await control.addMember(workspaceId, initial);
        const { keyId, secret } = await control.createKey(workspaceId, userId, member.scopes);
        if (initial !== role) await control.setMemberRole(workspaceId, userId, role);
        return [castName, { name: castName, secret, role, scopes: [...member.scopes], keyId, userId, workspaceId }];
      }),
    );
    return { workspaceId, keys: new Map(entries), teardown };
  } catch (e) {
    await teardown().catch(() => undefined);
    throw failed(e);
  }
}
