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
 * Creates the suite's workspace, members and keys. Where the target offers the cast addition
 * (docs/control-protocol-additions.md) that is one call; elsewhere the members are made one
 * call at a time once the workspace is there (side by side). On any failure the workspace is
 * deleted again and the error is rethrown, naming the suite, the run prefix and the step.
 */
export async function provisionSuite(suite: SuiteCast, control: ControlApi, prefix: string, opts: ProvisionOptions = {}): Promise<ProvisionedSuite> {
  const failed = (e: unknown): Error => new Error(`provisioning suite "${suite.name}" (run prefix ${prefix}) failed: ${(e as Error).message}`, { cause: e });
  let cast: [string, CastMember, Role][];
  try {
    cast = Object.entries(suite.cast).map(([castName, member]) => {
      const role = (Array.isArray(member.role) ? member.role[0] : member.role) as Role | undefined;
      if (!role) throw new Error(`cast member "${castName}" names no role`);
      return [castName, member, role];
    });
  } catch (e) {
    throw failed(e);
  }
  let created: Awaited<ReturnType<ControlApi['createWorkspace']>>;
  try {
    created = await control.createWorkspace(
      opts.credits,
      cast.map(([, member, role]) => ({ role, scopes: member.scopes })),
    );
  } catch (e) {
    throw failed(e);
  }
  const { workspaceId } = created;
  let deleted: Promise<void> | undefined;
  const teardown = (): Promise<void> => (deleted ??= control.deleteWorkspace(workspaceId));
  const handle = (castName: string, member: CastMember, role: Role, made: { userId: string; keyId: string; secret: string }): [string, KeyHandle] => [
    castName,
    { name: castName, secret: made.secret, role, scopes: [...member.scopes], keyId: made.keyId, userId: made.userId, workspaceId },
  ];
  try {
    const made = created.members;
    if (made) return { workspaceId, keys: new Map(cast.map(([castName, member, role], i) => handle(castName, member, role, made[i]!))), teardown };
    const entries = await Promise.all(
      cast.map(async ([castName, member, role]): Promise<[string, KeyHandle]> => {
        // A "member" cannot be given a key: create it as an analyst, then move it (control protocol, Roles).
        const initial: Role = KEY_HOLDING_ROLES.includes(role) ? role : 'analyst';
        const { userId } = await control.addMember(workspaceId, initial);
        const { keyId, secret } = await control.createKey(workspaceId, userId, member.scopes);
        if (initial !== role) await control.setMemberRole(workspaceId, userId, role);
        return handle(castName, member, role, { userId, keyId, secret });
      }),
    );
    return { workspaceId, keys: new Map(entries), teardown };
  } catch (e) {
    await teardown().catch(() => undefined);
    throw failed(e);
  }
}
