/**
 * The preflight of `wgc run`: before any check, make sure the run can conclude anything at all,
 * and name the mistake when it cannot. A misconfiguration is a usage error (exit 2), never a
 * verdict on the target, and never a green run that verified nothing:
 *
 * - a base URL that already ends in the API prefix (the suite adds /api/v1 itself) is refused,
 *   with the corrected URL;
 * - the API must answer where it should: a keyless GET /me is refused with a JSON error body (a
 *   4xx whose body is a JSON object). No answer at all is "cannot be reached"; any other answer
 *   (an HTML 404, a redirect, a 200) is "does not look like the API";
 * - every supplied key must work on GET /me (free, part 8): a key that does not is named, with
 *   what GET /me answered.
 */
import type { ApiClient } from '../http/api.ts';
import type { Exchange } from '../http/exchange.ts';
import { introspectKeys, type IntrospectedKey, type SuppliedKey } from './introspect.ts';

/** The path prefix the suite adds to every base URL (seed part 9). */
const API_PREFIX = '/api/v1';

/** Why a base URL is refused before anything is sent (it ends in the API prefix), or undefined. */
export function baseUrlProblem(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.toLowerCase().endsWith(API_PREFIX)) return undefined;
  const corrected = `${url.origin}${path.slice(0, -API_PREFIX.length)}`;
  return `${baseUrl} ends in the API prefix ${API_PREFIX}, which the suite adds to every request itself (it would call ${corrected}${API_PREFIX}${API_PREFIX}/me); use --base-url ${corrected}`;
}

/** What the preflight found: problems (the run must not go on) and the supplied keys' GET /me. */
export interface PreflightResult {
  problems: string[];
  introspected?: IntrospectedKey[];
}

const contentType = (ex: Exchange): string => ex.response?.headers['content-type']?.split(';')[0]?.trim() || 'no content type';

/** Runs the preflight against the API client of the run (see the module comment). */
export async function preflight(api: ApiClient & { apiUrl: string }, keys: readonly SuppliedKey[]): Promise<PreflightResult> {
  const me = `${api.apiUrl}/me`;
  const keyless = await api.send({ method: 'GET', path: '/me', key: null });
  const res = keyless.response;
  if (!res) {
    return {
      problems: [
        `the API cannot be reached: GET ${me} got no answer (${keyless.error?.kind ?? 'no response'}${keyless.error?.message ? `: ${keyless.error.message}` : ''}); check --base-url and that the target is up. The target is not to blame for this run.`,
      ],
    };
  }
  const json = res.isJson && typeof res.json === 'object' && res.json !== null && !Array.isArray(res.json);
  if (res.status < 400 || res.status >= 500 || !json) {
    return {
      problems: [
        `this does not look like the API: GET ${me} without a key answered ${res.status} ${contentType(keyless)}${json ? '' : ' (not a JSON error body)'}, where the API refuses it with a JSON error (401); check --base-url (the API is expected at <base-url>${API_PREFIX}).`,
      ],
    };
  }
  if (keys.length === 0) return { problems: [] };
  const introspected = await introspectKeys(api, keys);
  const problems = introspected.flatMap((k) =>
    k.ok ? [] : [`key ${k.name}: ${k.problem}; the key is wrong, revoked, expired or for another deployment (check the environment variable the profile names for it)`],
  );
  return { problems, introspected };
}
