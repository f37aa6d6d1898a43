/**
 * Key introspection for targets without the control protocol: each supplied key is asked
 * GET /me once per run (free per the seed, part 8 rule 2) for its role, scopes and workspace.
 * The result carries no secret, so it can travel in the run context and into reports.
 */
import type { ApiClient } from '../http/api.ts';

/** What GET /me said about one supplied key (or why it could not be read). */
export type IntrospectedKey = { name: string; ok: true; role: string; scopes: string[]; workspaceId: string; userId: string } | { name: string; ok: false; problem: string };

/** A supplied key: a label and its secret (from the environment variable the profile names). */
export interface SuppliedKey {
  name: string;
  secret: string;
}

/** Introspects every key with GET /me, in parallel. Never throws for target answers. */
export async function introspectKeys(api: ApiClient, keys: readonly SuppliedKey[]): Promise<IntrospectedKey[]> {
  return Promise.all(
    keys.map(async (k): Promise<IntrospectedKey> => {
      // Role and scopes are unknown until /me answers; the handle only carries the secret there.
      const ex = await api.send({ method: 'GET', path: '/me', key: { name: k.name, secret: k.secret, role: 'member', scopes: [] } });
      if (!ex.response) return { name: k.name, ok: false, problem: `GET /me failed: ${ex.error?.kind ?? 'no response'}` };
      if (ex.response.status !== 200) return { name: k.name, ok: false, problem: `GET /me answered ${ex.response.status}` };
      const me = ex.response.json as Record<string, unknown> | undefined;
      const scopes = me?.scopes;
      if (!me || typeof me.role !== 'string' || !Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) {
        return { name: k.name, ok: false, problem: 'GET /me did not answer { role, scopes }' };
      }
      return {
        name: k.name,
        ok: true,
        role: me.role,
        scopes: scopes as string[],
        workspaceId: typeof me.workspaceId === 'string' ? me.workspaceId : '',
        userId: typeof me.userId === 'string' ? me.userId : '',
      };
    }),
  );
}
