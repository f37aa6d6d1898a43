/**
 * The target profile: a JSON file describing a target (baseUrl, controlUrl, the keys to use,
 * existing fixtures, the target's own role names) and optionally any run setting. Secrets
 * never live in it: keys name the environment variable that holds their secret, and anything
 * that looks like an inline secret is rejected with a message saying what to do instead.
 */
import { FIELDS, PROFILE_ONLY_FIELDS } from './fields.ts';
import { coerce } from './coerce.ts';
import { FixturesSchema, KeyRefSchema, type Fixtures, type KeyRef } from './schema.ts';
import { ROLES, roleKey, type Role } from '../vocabulary.ts';

export interface ProfileValues {
  /** Run settings found in the profile, by field name. */
  settings: Record<string, unknown>;
  keys: KeyRef[];
  fixtures?: Fixtures;
  /** The target's role names → the document's roles. */
  roles?: Record<string, Role>;
}

const SECRET_FIELD = /secret|token|password|value|apikey|api_key|^key$|credential/i;
/** The member holding notes for the reader (JSON has no comments), as in JSON Schema: a string or a list of strings. */
export const COMMENT_FIELD = '$comment';
/** Conventional (upper-case) env var names only: a lower-case token is far more likely a pasted secret. */
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** Reads profile JSON text; `where` names the file in messages. Problems are appended to `errors`. */
export function parseProfile(text: string, where: string, errors: string[]): ProfileValues {
  const out: ProfileValues = { settings: {}, keys: [] };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    errors.push(`${where}: not valid JSON (${(e as Error).message})`);
    return out;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    errors.push(`${where}: expected a JSON object`);
    return out;
  }
  const settable = new Map(FIELDS.filter((f) => f.profile).map((f) => [f.field, f]));
  for (const [name, raw] of Object.entries(doc as Record<string, unknown>)) {
    if (name === COMMENT_FIELD) {
      // JSON has no comments: notes for the reader (`wgc init` writes them) are read and ignored.
      const ok = typeof raw === 'string' || (Array.isArray(raw) && raw.every((line) => typeof line === 'string'));
      if (!ok) errors.push(`${where}: ${COMMENT_FIELD}: expected a string or a list of strings (notes for the reader, ignored by the run)`);
    } else if (name === 'keys') out.keys = parseKeys(raw, where, errors);
    else if (name === 'fixtures') {
      const parsed = FixturesSchema.safeParse(raw);
      if (parsed.success) out.fixtures = parsed.data;
      else errors.push(`${where}: fixtures: expected { "accountId"?: string, "accountPersonId"?: string }`);
    } else if (name === 'roles') {
      const roles = parseRoles(raw, where, errors);
      if (roles) out.roles = roles;
    } else if (name === 'controlToken' || (SECRET_FIELD.test(name) && !settable.has(name))) {
      errors.push(`${where}: ${name}: secrets are never read from the profile; set ${name === 'controlToken' ? 'WGC_CONTROL_TOKEN' : 'an environment variable'} instead`);
    } else {
      const spec = settable.get(name);
      if (!spec) {
        const allowed = [...settable.keys(), ...PROFILE_ONLY_FIELDS].join(', ');
        errors.push(`${where}: ${name}: unknown field; a profile may hold ${allowed}`);
        continue;
      }
      const c = coerce(spec.kind, raw);
      if (c.ok) out.settings[name] = c.value;
      else errors.push(`${where}: ${name}: ${c.problem}`);
    }
  }
  return out;
}

/**
 * `roles`: the target's own role names → the document's. Names are compared as GET /me's roles
 * are (roleKey: case, whitespace, "-" and "_" aside), so two names that compare equal must agree.
 */
function parseRoles(raw: unknown, where: string, errors: string[]): Record<string, Role> | undefined {
  const expected = `{ "the target's role name": ${ROLES.map((r) => `"${r}"`).join(' | ')} }`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push(`${where}: roles: expected ${expected}`);
    return undefined;
  }
  const roles: Record<string, Role> = {};
  const seen = new Map<string, string>();
  let ok = true;
  for (const [name, role] of Object.entries(raw as Record<string, unknown>)) {
    const problem = !(ROLES as readonly unknown[]).includes(role)
      ? `expected one of the API document's roles (${ROLES.join(', ')}), got ${JSON.stringify(role) ?? String(role)}`
      : roleKey(name) === ''
        ? 'a role name needs a letter or digit'
        : seen.has(roleKey(name)) && roles[seen.get(roleKey(name))!] !== role
          ? `names the same role as ${JSON.stringify(seen.get(roleKey(name)))} (case, spaces, "-" and "_" aside) but maps it to another role`
          : undefined;
    if (problem) {
      errors.push(`${where}: roles.${JSON.stringify(name)}: ${problem}`);
      ok = false;
      continue;
    }
    roles[name] = role as Role;
    seen.set(roleKey(name), name);
  }
  return ok ? roles : undefined;
}

function parseKeys(raw: unknown, where: string, errors: string[]): KeyRef[] {
  if (!Array.isArray(raw)) {
    errors.push(`${where}: keys: expected a list of { "name": label, "env": ENV_VAR_NAME }`);
    return [];
  }
  const keys: KeyRef[] = [];
  raw.forEach((entry: unknown, i) => {
    const place = `${where}: keys[${i}]`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
      errors.push(`${place}: expected { "name": label, "env": ENV_VAR_NAME }`);
      return;
    }
    const e = entry as Record<string, unknown>;
    const inline = Object.keys(e).find((k) => k !== 'name' && k !== 'env');
    if (inline !== undefined) {
      const why = SECRET_FIELD.test(inline) ? 'secrets are never read from the profile; ' : 'unknown field; ';
      errors.push(`${place}.${inline}: ${why}put the secret in an environment variable and give its name in keys[${i}].env`);
      return;
    }
    if (typeof e.env === 'string' && !ENV_NAME.test(e.env)) {
      errors.push(
        `${place}.env: expected the upper-case NAME of an environment variable holding the secret (e.g. WGC_KEY_ADMIN), got a value that may be the secret itself; never put secrets in the profile`,
      );
      return;
    }
    const parsed = KeyRefSchema.safeParse(e);
    if (!parsed.success) {
      const field = typeof e.name === 'string' && /^[A-Za-z0-9_-]+$/.test(e.name) ? 'env' : 'name';
      const expected = field === 'name' ? 'a label of letters, digits, "_" or "-"' : 'the name of an environment variable';
      errors.push(`${place}.${field}: expected ${expected}, got ${JSON.stringify(e[field]) ?? 'nothing'}`);
      return;
    }
    if (keys.some((k) => k.name === parsed.data.name)) errors.push(`${place}.name: duplicate key name "${parsed.data.name}"`);
    else keys.push(parsed.data);
  });
  return keys;
}
