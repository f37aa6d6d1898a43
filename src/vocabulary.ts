/**
 * The vocabulary every layer shares: the scopes and workspace roles of seed part 5, a key the
 * suite holds, and what a suite asks of one. It imports nothing of the project, so the HTTP
 * client, the spec loader, the control client, the target and the reference can all speak it
 * without reaching up into the engine (test/core/layering.test.ts keeps it so).
 */

/**
 * The extension of the project's own modules as they run: '.ts' from a clone (tsx compiles on
 * load), '.js' from the compiled package (dist/, built by `npm run build`). Paths the code builds
 * at run time (the suites entry, suite files, worker entries) use it; imports are rewritten by tsc.
 */
export const SOURCE_EXT: '.ts' | '.js' = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

export const SCOPES = ['graph:read', 'graph:write', 'research:run', 'crm:read', 'crm:write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['owner', 'admin', 'analyst', 'member'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The spelling two role names are compared by: lower case, without whitespace, "-" or "_"
 * (the document names roles only as words in prose; GET /me's `role` is "a string"). Used by
 * the cast matching (src/target/roles.ts) and by the profile's `roles` map (src/config).
 */
export function roleKey(raw: string): string {
  return raw.toLowerCase().replace(/[\s_-]+/g, '');
}

/** A key a suite needs: held by a member of one of these roles, with these scopes. */
export interface CastMember {
  role: Role | readonly Role[];
  scopes: readonly Scope[];
  /** The key must hold exactly these scopes (needed to prove "no scope implies another"). Default true. */
  exact?: boolean;
}

/** A provisioned or supplied key. `secret` must only ever reach the HTTP client. */
export interface KeyHandle {
  /** The cast name it fills. */
  name: string;
  secret: string;
  role: Role;
  scopes: readonly Scope[];
  /** Known only with the test-control protocol. */
  keyId?: string;
  userId?: string;
  workspaceId?: string;
}
