/**
 * Definition fixtures shared by the suites: a valid create body carrying the run prefix, a
 * create that registers its own clean-up (archive), and readers of the Definition shape.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { Finding } from '../../src/engine/finding.ts';
import { documentedDefinition } from './documented.ts';
import { brief, isObject } from './json.ts';

export const MODULE_KEYS = ['customers', 'partners', 'investors', 'recruiting', 'advisors', 'vendors'] as const;
export type ModuleKey = (typeof MODULE_KEYS)[number];

/** A Definition as the suite reads it: only the fields checks rely on are typed. */
export interface DefinitionView {
  id: string;
  name: string;
  module_key: string;
  state: string;
  archived_at: string | null;
  enum_values: { label: string; slug: string; archived: boolean; description?: string | null; color?: string | null }[];
  updated_at: string;
  created_at: string;
  [field: string]: unknown;
}

let counter = 0;

/** A unique, prefixed name within the 80-character bound. */
export function uniqueName(ctx: CheckContext, hint: string): string {
  counter += 1;
  return `${ctx.run.prefix}${hint}-${counter}`.slice(0, 80);
}

/** The smallest valid create body (required fields only), named with the run prefix. */
export function minimalCreateBody(ctx: CheckContext, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: uniqueName(ctx, 'def'),
    moduleKey: 'customers',
    entityKinds: ['account'],
    valueType: 'enum',
    reason: 'conformance check',
    ...overrides,
  };
}

/** Reads a Definition out of a 2xx answer; a body that is not an object with an id is a finding on `clause`. */
export function definitionOf(clause: string, ex: Exchange): DefinitionView {
  const body = ex.response?.json;
  if (!isObject(body) || typeof body.id !== 'string') {
    throw new Finding({ clause, message: 'the answer is not a Definition object with an id', expected: 'a Definition', received: brief(body ?? ex.response?.text), exchange: ex });
  }
  return body as unknown as DefinitionView;
}

/** True for a 2xx status. */
export const is2xx = (ex: Exchange): boolean => ex.response !== undefined && ex.response.status >= 200 && ex.response.status < 300;

/**
 * Creates a definition and registers its archive as clean-up. A create that does not succeed
 * is a finding on `clause` (the clause whose observation needed the definition).
 */
export async function createDefinition(
  ctx: CheckContext,
  key: KeyHandle,
  clause: string,
  overrides: Record<string, unknown> = {},
): Promise<{ definition: DefinitionView; exchange: Exchange; body: Record<string, unknown> }> {
  const body = minimalCreateBody(ctx, overrides);
  const exchange = await ctx.api.send({ method: 'POST', path: '/definitions', key, body });
  if (!is2xx(exchange)) {
    throw new Finding({
      clause,
      message: 'a valid definition create was not accepted',
      expected: '2xx with a Definition',
      received: exchange.response ? `${exchange.response.status} ${brief(exchange.response.json ?? exchange.response.text)}` : `no response (${exchange.error?.kind})`,
      exchange,
    });
  }
  const definition = definitionOf(clause, exchange);
  ctx.cleanup(async () => {
    await ctx.api.send({ method: 'POST', path: `/definitions/${definition.id}/archive`, key, body: { reason: 'conformance run clean-up' } });
  });
  return { definition, exchange, body };
}

/**
 * Fields the server owns and may fill in or change on its own at any time (seed 2.1 lists them
 * without saying when they are computed): the credit estimates and the last run's credits.
 * Never compared (SVC-005's recorded reading).
 */
export const SERVER_OWNED: readonly string[] = ['est_credits_low', 'est_credits_high', 'last_run_credits'];

/**
 * The definition changed on its own between two renderings: its state moved between two
 * non-archived states (a transition seed 3 does not show), or a server-owned field changed.
 * updated_at may then have moved with it.
 */
export function movedOnItsOwn(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  const stateMoved = before.state !== after.state && before.state !== 'archived' && after.state !== 'archived';
  return stateMoved || SERVER_OWNED.some((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
}

/**
 * Two renderings of one definition as compared for "nothing changed it": only what seed 2.1 and
 * 2.2 define (documentedDefinition: a field of the server's own may change as it likes); of the
 * state only "archived or not" counts, the server-owned fields are left out, and so is
 * updated_at when the definition changed on its own (movedOnItsOwn). Anything else that differs
 * is a change: a listing or a refused write that advances updated_at with nothing else moving
 * still shows.
 */
export function comparableRenderings(before: Record<string, unknown>, after: Record<string, unknown>): [Record<string, unknown>, Record<string, unknown>] {
  const moved = movedOnItsOwn(before, after);
  const view = (d: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...documentedDefinition(d), state: d.state === 'archived' ? 'archived' : '(not archived)' };
    for (const f of SERVER_OWNED) delete out[f];
    if (moved) delete out.updated_at;
    return out;
  };
  return [view(before), view(after)];
}

/** The string slugs of a definition's enum values, in order; none when it shows no enum_values array. */
export function enumValueSlugs(def: { enum_values?: unknown }): string[] {
  const values: unknown = def.enum_values;
  if (!Array.isArray(values)) return [];
  return values
    .filter(isObject)
    .map((v) => v.slug)
    .filter((slug): slug is string => typeof slug === 'string');
}
