/**
 * Role names as the API document spells them. The document names the workspace roles only as
 * words in its prose (owner, admin, analyst, member; seed part 5) and GET /me's `role` is "a
 * string", so a target may well answer `Owner` or `ADMIN`. A role GET /me gives is read as the
 * document's word with case, surrounding whitespace and separators ("-", "_", spaces) set
 * aside; a target that calls its roles something else ("workspace-owner") names the mapping in
 * its profile (`"roles": { "workspace-owner": "owner" }`), whose names are compared the same way.
 */
import { ROLES, roleKey, type Role } from '../vocabulary.ts';

/** A target's own role names → the document's roles (the profile's `roles`). */
export type RoleMap = Readonly<Record<string, Role>>;

const DOCUMENT = new Map<string, Role>(ROLES.map((r) => [roleKey(r), r]));

/**
 * The document's role a role name of the target stands for: the profile's mapping first (a
 * target's "Admin" may be the document's owner), then the document's own words; undefined when
 * neither names it.
 */
export function documentRole(raw: string, map: RoleMap = {}): Role | undefined {
  const key = roleKey(raw);
  if (key === '') return undefined;
  for (const [name, role] of Object.entries(map)) if (roleKey(name) === key) return role;
  return DOCUMENT.get(key);
}

/** A role as GET /me said it, for messages: "owner", "Owner → owner", or '"Superuser", not a role of the API document'. */
export function describeRole(raw: string, map: RoleMap = {}): string {
  const role = documentRole(raw, map);
  if (role === undefined) return `${JSON.stringify(raw)}, not a role of the API document`;
  return role === raw ? role : `${raw} → ${role}`;
}
