/**
 * Creating definitions: generated valid bodies (property-based) and what comes back; the
 * workspace of a definition; unknown body properties outside the decision trace.
 */
import { randomUUID } from 'node:crypto';
import type { CheckContext, CheckDef } from '../../src/engine/check.ts';
import { expectJson, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable, type Evidence } from '../../src/engine/finding.ts';
import type { LoadedSpec } from '../../src/spec/load.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { bodyArbitraries } from '../../src/generators/index.ts';
import { is2xx, minimalCreateBody, uniqueName } from '../_shared/definitions.ts';
import { brief, isObject } from '../_shared/json.ts';
import { pagesFor } from '../_shared/paging-walk.ts';
import { PAGE_LIMIT, SMALL_WALK_CREDITS, WALK_PAGES, expectListedAsAnswered, listDefinitions, walkMaxCredits } from './listing.ts';
import { defaultEvidence, enumValueEvidence, reflectEvidence, shapeEvidence } from './shape.ts';
import { ADMIN, SHRINK_BUDGET, TWO_VALUES, apiSpec, archive, distinctEnumValues, forEachGenerated, optionalReader, refusalEvidence, replay, setupDefinition, shown, withoutTrace } from './support.ts';
import { enumValuesDropped, nullableFields, orderedCreate, thresholdDefaults } from './valid-bodies.ts';

/** Replay data of one create body: the generated run's seed and path, or just the body for a fixed one. */
type Replay = Pick<Evidence, 'seed' | 'path' | 'counterexample'>;

/** Sends one create with the check's admin key. */
const sendCreate = (ctx: CheckContext, body: Record<string, unknown>): Promise<Exchange> => ctx.api.send({ method: 'POST', path: '/definitions', key: ctx.key(ADMIN), body });

/** A valid create that was not accepted (DEF-012). */
function refusedCreate(ctx: CheckContext, ex: Exchange, at: Replay): undefined {
  ctx.softFail({ clause: 'DEF-012', message: 'a valid create was not accepted', expected: '2xx with the Definition', received: shown(ex), exchange: ex, ...at });
  return undefined;
}

/**
 * Judges the 2xx answer `ex` to the valid create `body`: its body (DEF-012), shape (DEF-001,
 * DEF-002, DEF-005), reflection (DEF-003), defaults (DEF-004) and enum values (DEF-005); and
 * archives the new definition at clean-up. Returns its id when there is one.
 */
export function judgeCreated(ctx: CheckContext, spec: LoadedSpec, body: Record<string, unknown>, ex: Exchange, at: Replay): string | undefined {
  const key = ctx.key(ADMIN);
  const def = ex.response!.json;
  let id: string | undefined;
  if (isObject(def) && typeof def.id === 'string') {
    const made = def.id;
    id = made;
    ctx.cleanup(async () => void (await archive(ctx, key, made, 'conformance run clean-up')));
  }
  ctx.judged('DEF-012');
  if (!isObject(def)) {
    ctx.softFail({ clause: 'DEF-012', message: 'a valid create did not return a Definition object', expected: 'the new Definition', received: shown(ex), exchange: ex, ...at });
    return id;
  }
  // Enum values sent with a value type other than enum may be dropped (none stored).
  const input = Array.isArray(body.enumValues) && !enumValuesDropped(body, def.enum_values) ? (body.enumValues as Record<string, unknown>[]) : [];
  const evidence = [
    ...shapeEvidence(spec, def, ex, 'the create answer'),
    ...reflectEvidence(body, def, ex, nullableFields(spec.componentSchema('Definition'))),
    ...defaultEvidence(spec.operation('createDefinition').requestBodySchema ?? {}, body, def, ex),
    ...enumValueEvidence('DEF-005', input, Array.isArray(def.enum_values) ? def.enum_values : [], ex, 'enum value'),
  ];
  for (const e of evidence) ctx.softFail({ ...e, ...at });
  return id;
}

/** Generated valid creates: status, shape, reflection of the input, defaults, enum values; the listed copies' shape. */
export const createProperty: CheckDef = {
  id: 'definitions/create-property',
  title: 'valid creates (two fixed, then generated) succeed and return a complete Definition that reflects the request, with defaults and enum values as the seed says',
  clauses: ['DEF-001', 'DEF-002', 'DEF-003', 'DEF-004', 'DEF-005', 'DEF-012'],
  needs: { mutation: true },
  // Per create (two fixed, one per run): the create and its clean-up archive; one walk of the
  // live definitions, which are this check's own (the suite's earlier checks archived theirs).
  credits: (numRuns) => 2 * (numRuns + 2) + Math.min(WALK_PAGES, pagesFor(numRuns + 2, PAGE_LIMIT)),
  // The walk over a workspace holding more, or ending on an empty page; on a target that
  // deviates, the shrinking of the first deviating body (a create and its archive per candidate).
  maxCredits: (numRuns) => 2 * (numRuns + 2) + walkMaxCredits(numRuns + 2) + 2 * SHRINK_BUDGET,
  async run(ctx) {
    const spec = await apiSpec();
    const created: (string | undefined)[] = [];
    // What each create answered, by id: the listed copy must be the same.
    const answers = new Map<string, Record<string, unknown>>();
    const judge = async (body: Record<string, unknown>, at: Replay, ctx: CheckContext): Promise<{ id: string | undefined; answer?: Record<string, unknown> }> => {
      const ex = await sendCreate(ctx, body);
      const id = is2xx(ex) ? judgeCreated(ctx, spec, body, ex, at) : refusedCreate(ctx, ex, at);
      return id !== undefined && isObject(ex.response?.json) ? { id, answer: ex.response.json } : { id };
    };
    // Gathered in the order the creates are listed here (the generated ones in run order).
    const gather = (made: { id: string | undefined; answer?: Record<string, unknown> }): void => {
      if (made.id !== undefined && made.answer) answers.set(made.id, made.answer);
      created.push(made.id);
    };
    // Generated bodies rarely leave an optional field out: these two always judge every default
    // (required fields only) and enum values sent without an archived flag.
    for (const fixed of [minimalCreateBody(ctx), minimalCreateBody(ctx, { ...TWO_VALUES })]) {
      gather(await judge(fixed, { counterexample: JSON.stringify(fixed) }, ctx));
    }
    const defaults = thresholdDefaults(spec.operation('createDefinition').requestBodySchema ?? {});
    const bodies = bodyArbitraries(spec, 'createDefinition');
    const generated = await forEachGenerated(
      ctx,
      'DEF-012',
      bodies.valid,
      async (generated, path, ctx) => {
        // Thresholds ordered as the defaults are (auto-apply ≥ review): a server may refuse them inverted.
        const body = orderedCreate(withoutTrace(distinctEnumValues(generated as Record<string, unknown>, 'enumValues')), defaults);
        // The run prefix names every record the run creates.
        body.name = uniqueName(ctx, 'prop');
        return judge(body, replay(ctx, body, path), ctx);
      },
      { schema: bodies.schema },
    );
    for (const made of generated) gather(made);
    // "Returned by list" as well: the listed copies of the created definitions have the same
    // shape. They are live: the default listing shows them (and not the archived definitions of
    // the checks before, which would make the walk's length depend on them).
    const ids = created.filter((id): id is string => id !== undefined);
    if (ids.length > 0) {
      const listing = await listDefinitions(ctx, ctx.key(ADMIN), 'absent', { ids });
      // Every item the listing showed is a Definition the list returned (2.1), an item that
      // lost its id included; others' items too: all of them are the server's answers.
      for (const page of listing.exchanges) {
        const items = isObject(page.response?.json) && Array.isArray(page.response.json.items) ? page.response.json.items : [];
        for (const [i, item] of items.entries()) {
          const label = isObject(item) && typeof item.id === 'string' ? item.id : `#${i + 1} of its page`;
          for (const e of shapeEvidence(spec, item, page, `the listed definition ${label}`)) ctx.softFail(e);
        }
      }
      // The stored copy is what the create answered: the listing shows the same writable
      // fields (leaving out what a server moves on its own, comparableRenderings).
      expectListedAsAnswered(ctx, 'DEF-003', answers, listing, 'create');
    }
  },
};

/** workspace_id is the workspace GET /me reports for the key that created and that reads it. */
export const workspaceId: CheckDef = {
  id: 'definitions/workspace-id',
  title: "a definition's workspace_id is the workspace of the key that created it and of the keys that list it",
  clauses: ['DEF-024'],
  needs: { mutation: true },
  // The create, its clean-up archive, and one walk per reading key.
  credits: 2 + 2 * SMALL_WALK_CREDITS,
  maxCredits: 2 + 2 * walkMaxCredits(1),
  async run(ctx) {
    const admin = ctx.key(ADMIN);
    const { definition, exchange } = await setupDefinition(ctx, admin);
    for (const key of [admin, optionalReader(ctx)]) {
      if (!key) continue;
      const me = await ctx.api.send({ method: 'GET', path: '/me', key });
      const meBody = me.response?.json;
      const ws = isObject(meBody) ? meBody.workspaceId : undefined;
      if (me.response?.status !== 200 || typeof ws !== 'string') throw new NotObservable(`GET /me does not name the key's workspace: ${shown(me)}`);
      if (key === admin) ctx.judged('DEF-024');
      if (key === admin && definition.workspace_id !== ws) {
        ctx.softFail({ clause: 'DEF-024', message: 'the created definition names another workspace than GET /me', expected: ws, received: brief(definition.workspace_id), exchange, context: [me] });
      }
      const listing = await listDefinitions(ctx, key, 'true', { ids: [definition.id] });
      const item = listing.byId.get(definition.id);
      if (item) ctx.judged('DEF-024');
      if (item && item.workspace_id !== ws) {
        ctx.softFail({
          clause: 'DEF-024',
          message: `the definition listed for the ${key.name} key names another workspace than its GET /me`,
          expected: ws,
          received: brief(item.workspace_id),
          exchange: listing.exchanges.at(-1)!,
          context: [me],
        });
      }
    }
  },
};

/** An unknown create property is ignored (and absent from the Definition) or refused as invalid (400, or 422). */
export const unknownProperties: CheckDef = {
  id: 'definitions/unknown-create-property',
  title: 'a create with a property the table does not name is accepted without it, or refused as invalid (400 or 422)',
  clauses: ['DEF-025'],
  needs: { mutation: true },
  credits: 2,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const extra = `wgc_unknown_${randomUUID().slice(0, 8)}`;
    const body = { ...minimalCreateBody(ctx), [extra]: 'not a field of the create table' };
    const ex = await ctx.api.send({ method: 'POST', path: '/definitions', key, body });
    if (!is2xx(ex)) {
      const e = refusalEvidence('DEF-025', ex, INVALID_STATUSES);
      if (e) throw new Finding({ ...e, message: `neither accepted nor refused as invalid: ${e.message}` });
      return;
    }
    const def = expectJson('DEF-025', ex);
    if (isObject(def) && typeof def.id === 'string') {
      const id = def.id;
      ctx.cleanup(async () => void (await archive(ctx, key, id, 'conformance run clean-up')));
    }
    if (isObject(def) && Object.hasOwn(def, extra)) {
      throw new Finding({ clause: 'DEF-025', message: `the unknown property ${extra} was stored and returned`, expected: `no property ${extra}`, received: brief(def[extra]), exchange: ex });
    }
  },
};
