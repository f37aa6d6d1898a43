/**
 * A key is bound to one workspace (part 5 rules 2-3): another workspace's record ids are
 * refused as if they did not exist (404 or 403, docs/interpretations.md) and nothing of theirs
 * changes; lists show only the key's own records. The other workspace and its records are
 * created for the check, and proven to exist for their own key first.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { soft } from './soft.ts';
import { brief, containsString, isObject } from '../_shared/json.ts';
import { comparableRenderings, enumValueSlugs, minimalCreateBody, type DefinitionView } from '../_shared/definitions.ts';
import { linkedPaths } from '../_shared/linked.ts';
import { availableKeys, listAll, ok2xx, otherWorkspace, softStatus } from './support.ts';

/** How another workspace's id may be answered: as unknown (404) or as forbidden (403). */
const REFUSED = [404, 403] as const;

/** Linked collections of the other workspace's records followed at most (three each on the reference). */
const LINKS = 6;

/** The fields a foreign write could change, compared before and after. */
const WATCHED = ['name', 'state', 'archived_at', 'updated_at', 'enum_values', 'description', 'reason'] as const;

/** The other workspace's definition as its own key lists it (archived ones included). */
async function readOwn(ctx: CheckContext, key: KeyHandle, id: string): Promise<{ def?: Record<string, unknown>; ex: Exchange }> {
  const seen = await listAll(ctx, key, '/definitions', { query: { includeArchived: true } });
  const def = seen.items.find((i) => typeof i.id === 'string' && i.id.toLowerCase() === id.toLowerCase());
  return def ? { def, ex: seen.exchanges.at(-1)! } : { ex: seen.failed ?? seen.exchanges.at(-1)! };
}

/**
 * The watched fields that differ between two renderings, compared as comparableRenderings:
 * of the state only "archived or not" counts, since transitions other than archiving are not
 * shown (seed 3) and a target may move a definition between draft, proposed, backfilling and
 * live on its own, changing what moves with them.
 */
function differing(fields: readonly string[], a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const [x, y] = comparableRenderings(a, b);
  return fields.filter((f) => JSON.stringify(x[f]) !== JSON.stringify(y[f]));
}

/** Definition writes and account reads with another workspace's ids are refused; its records stay unchanged and unlisted. */
export const foreignIds: CheckDef = {
  id: 'auth/foreign-ids-refused',
  title: "Another workspace's record ids are refused and its records neither change nor show",
  clauses: ['AUTH-012', 'AUTH-014'],
  endpoints: ['updateDefinition', 'mergeDefinitionValue', 'archiveDefinition', 'listDefinitions', 'getAccount', 'getPerson', 'listRelationships', 'listIcps'],
  needs: { control: true, mutation: true },
  // credits: measured on the reference (specs/credit-plan.json). The ceiling: the other
  // workspace's create, three listings of its one definition and its own reads of the account and
  // both person ids; our listing and two data lists; every listing of two pages (ending on an
  // empty page, the own one over a workspace holding more, too).
  // Plus the linked collections read by the other workspace's key, and by ours where let through.
  maxCredits: 1 + 3 * 2 + 3 + 2 + 2 + 2 * LINKS,
  async run(ctx) {
    const [admin] = availableKeys(ctx, ['admin']);
    const [reader] = availableKeys(ctx, ['reader']);
    if (!admin || !reader) throw new NotObservable('needs the admin and reader cast keys');
    const other = await otherWorkspace(ctx, ['graph:read', 'admin']);
    const created = await ctx.api.send({
      method: 'POST',
      path: '/definitions',
      key: other.key,
      body: minimalCreateBody(ctx, { enumValues: [{ label: 'Alpha' }, { label: 'Beta' }] }),
    });
    const def = created.response?.json as DefinitionView | undefined;
    if (!ok2xx(created) || !isObject(def) || typeof def.id !== 'string') throw new NotObservable('could not create a definition in the second workspace');
    const first = await readOwn(ctx, other.key, def.id);
    const before = await readOwn(ctx, other.key, def.id);
    if (!first.def || !before.def) throw new NotObservable("the second workspace's own key does not list its new definition");
    // Fields that change between two plain reads (e.g. a listing that touches updated_at) say
    // nothing about the writes: they are left out of the comparison.
    const unstable = differing(WATCHED, first.def, before.def);
    const watched = WATCHED.filter((f) => !unstable.includes(f));
    const slugs = enumValueSlugs(def);

    // Writes through this workspace's admin key, with valid bodies: only the id is foreign.
    const writes: [string, string, unknown][] = [
      ['PATCH', `/definitions/${def.id}`, { reason: 'conformance check', name: `${ctx.run.prefix}foreign-patch` }],
      ['POST', `/definitions/${def.id}/merge-value`, { fromSlug: slugs[0] ?? 'alpha', intoSlug: slugs[1] ?? 'beta', reason: 'conformance check' }],
      ['POST', `/definitions/${def.id}/archive`, { reason: 'conformance check' }],
    ];
    const sent: Exchange[] = [];
    for (const [method, path, body] of writes) {
      const ex = await ctx.api.send({ method: method as 'PATCH' | 'POST', path, key: admin, body });
      sent.push(ex);
      softStatus(ctx, 'AUTH-012', ex, REFUSED, `${method} ${path.replace(def.id, '{id of another workspace}')}`);
    }
    const after = await readOwn(ctx, other.key, def.id);
    const changed = after.def ? differing(watched, before.def, after.def) : ['(gone from its own list)'];
    if (changed.length > 0) {
      soft(ctx, () => {
        throw new Finding({
          clause: 'AUTH-012',
          message: `writes with another workspace's definition id changed it (${changed.join(', ')})`,
          expected: brief(Object.fromEntries(watched.map((f) => [f, before.def![f]]))),
          received: after.def ? brief(Object.fromEntries(watched.map((f) => [f, after.def![f]]))) : 'not listed for its own key',
          exchange: after.ex,
          context: sent,
        });
      });
    }

    // Lists of this workspace never show the other workspace's records.
    const mine = await listAll(ctx, reader, '/definitions', { query: { includeArchived: true }, maxPages: 2 });
    // Judged on the items of the pages that were answered as a collection.
    if (mine.exchanges.length > (mine.failed ? 1 : 0)) ctx.judged('AUTH-014');
    const leaked = mine.items.filter((i) => (typeof i.id === 'string' && i.id.toLowerCase() === def.id.toLowerCase()) || i.workspace_id === other.workspaceId);
    if (leaked.length > 0) {
      soft(ctx, () => {
        throw new Finding({
          clause: 'AUTH-014',
          message: "GET /definitions listed another workspace's definitions",
          expected: "only the key's workspace's definitions",
          received: brief(leaked),
          exchange: mine.exchanges.at(-1)!,
        });
      });
    }

    await foreignData(ctx, reader, other);
  },
};

/**
 * Stored data of the other workspace (an account, its person): ids readable by their own key
 * are refused to this workspace's key, and this workspace's data lists never mention them.
 */
async function foreignData(ctx: CheckContext, reader: KeyHandle, other: { workspaceId: string; key: KeyHandle }): Promise<void> {
  const { accountId } = await ctx.control.createAccount(other.workspaceId, { name: `${ctx.run.prefix}foreign-account` });
  const { personId, accountPersonId } = await ctx.control.createPerson(other.workspaceId, accountId, { name: `${ctx.run.prefix}foreign-person` });
  const reads: [string, string][] = [
    ['/data/accounts/', accountId],
    ['/data/people/', personId],
    ['/data/people/', accountPersonId],
  ];
  const links: string[] = [];
  for (const [base, id] of reads) {
    // Only meaningful when the record is readable where it lives (the definition writes above
    // already observed the clause otherwise).
    const own = await ctx.api.send({ method: 'GET', path: base + id, key: other.key });
    if (!ok2xx(own)) continue;
    for (const p of linkedPaths(own, base + id, LINKS)) if (!links.includes(p) && links.length < LINKS) links.push(p);
    const ex = await ctx.api.send({ method: 'GET', path: base + id, key: reader });
    softStatus(ctx, 'AUTH-012', ex, REFUSED, `GET ${base}{id of another workspace}`);
  }
  await foreignLinked(ctx, reader, other.key, links);
  for (const path of ['/data/relationships', '/data/icps']) {
    const ex = await ctx.api.send({ method: 'GET', path, key: reader });
    const body = ex.response?.json;
    if (ok2xx(ex)) ctx.judged('AUTH-014');
    const named = [accountId, personId, accountPersonId].filter((id) => ok2xx(ex) && containsString(body, id));
    if (named.length > 0) {
      soft(ctx, () => {
        throw new Finding({
          clause: 'AUTH-014',
          message: `GET ${path} mentions records of another workspace`,
          expected: "only the key's workspace's records",
          received: `ids ${named.join(', ')} of the other workspace`,
          exchange: ex,
        });
      });
    }
  }
}

/**
 * The collections the other workspace's account and person link to (relatedData), read by this
 * workspace's key: refused as an unknown or forbidden id (404, 403), or answered without any
 * item the other workspace's own key sees there (a server may answer a collection under an id
 * it does not know as empty). Judged only on links whose own read lists at least one item.
 */
async function foreignLinked(ctx: CheckContext, reader: KeyHandle, otherKey: KeyHandle, links: readonly string[]): Promise<void> {
  for (const path of links) {
    const own = await ctx.api.send({ method: 'GET', path, key: otherKey });
    const body = own.response?.json;
    const ids = ok2xx(own) && isObject(body) && Array.isArray(body.items) ? body.items.flatMap((i) => (isObject(i) && typeof i.id === 'string' ? [i.id] : [])) : [];
    if (ids.length === 0) continue;
    const ex = await ctx.api.send({ method: 'GET', path, key: reader });
    if (!ok2xx(ex)) {
      softStatus(ctx, 'AUTH-012', ex, REFUSED, `GET ${path} (linked from another workspace's record)`);
      continue;
    }
    ctx.judged('AUTH-012');
    const leaked = ids.filter((id) => containsString(ex.response?.json, id));
    if (leaked.length > 0) {
      soft(ctx, () => {
        throw new Finding({
          clause: 'AUTH-012',
          message: `GET ${path}, a collection linked from another workspace's record, listed that workspace's records to this workspace's key`,
          expected: '404 or 403, or no record of the other workspace',
          received: `ids ${leaked.join(', ')}`,
          exchange: ex,
          context: [own],
        });
      });
    }
  }
}
