/**
 * The workspace comes only from the verified key (part 5 rule 3): another workspace's id in
 * headers, query parameters or body fields is never used. Reads show the key's workspace;
 * creates land in it. A request naming another workspace may also be refused, as invalid (400,
 * or 422) or as forbidden (403), wherever the name is: a refusal does not take the workspace
 * from the input either (and unknown query parameters and body properties may be refused
 * anyway: DEF-025). A second workspace (with a definition of its own) is created for the check.
 */
import type { ApiRequest, CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse, expectResponse, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { soft, softAsync } from './soft.ts';
import { brief, isObject } from '../_shared/json.ts';
import { minimalCreateBody } from '../_shared/definitions.ts';
import { availableKeys, idsOf, listAll, ok2xx, otherWorkspace } from './support.ts';

const CLAUSE = 'AUTH-011';

/** The ways a request can name a workspace: headers (always sent), query, body fields. */
const headersNaming = (ws: string): Record<string, string> => ({ 'x-workspace-id': ws, 'x-workspace': ws });
const queryNaming = (ws: string): Record<string, string> => ({ workspaceId: ws, workspace_id: ws, workspace: ws });
const bodyNaming = (ws: string): Record<string, string> => ({ workspaceId: ws, workspace_id: ws });

/** The refusals of a request that names another workspace: as invalid, or as forbidden. */
const REFUSALS: readonly number[] = [...INVALID_STATUSES, 403];
const refused = (ex: Exchange): boolean => ex.response !== undefined && REFUSALS.includes(ex.response.status);

function fail(message: string, expected: string, ex: Exchange): never {
  throw new Finding({ clause: CLAUSE, message, expected, received: ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind})`, exchange: ex });
}

/**
 * The workspaceId GET /me reports for a request, undefined when a request naming another
 * workspace (`naming`) was refused, or a finding when the answer is not usable.
 */
async function meWorkspace(ctx: CheckContext, req: ApiRequest, naming: boolean): Promise<string | undefined> {
  const ex = await ctx.api.send(req);
  const res = expectResponse(CLAUSE, ex);
  // Refusing a request that names another workspace is not taking the workspace from it.
  if (naming && refused(ex)) return undefined;
  const ws = isObject(res.json) ? res.json.workspaceId : undefined;
  if (!ok2xx(ex) || typeof ws !== 'string') {
    fail(
      naming ? 'GET /me neither answered 2xx with a workspaceId nor refused the request when another workspace was named' : 'GET /me did not answer 2xx with a workspaceId',
      naming ? `2xx with the key's workspaceId, or a refusal (${REFUSALS.join(', ')})` : "2xx with the key's workspaceId",
      ex,
    );
  }
  return ws;
}

/** A workspace id named in headers, query or body is ignored by GET /me, GET /definitions and POST /definitions. */
export const workspaceFromKey: CheckDef = {
  id: 'auth/workspace-only-from-key',
  title: "A workspace named in headers, query or body is never used: the request is answered in the key's workspace, or refused",
  clauses: [CLAUSE],
  needs: { control: true, mutation: true },
  // credits: measured on the reference (specs/credit-plan.json). The ceiling: the other
  // workspace's create and listing, three listings before the creates, three creates and their
  // clean-up archives, one listing after, each listing of up to two pages (a workspace holding
  // more, or walks ending on an empty page).
  maxCredits: 1 + 2 + 3 * 2 + 2 * 3 + 2,
  async run(ctx) {
    const [key] = availableKeys(ctx, ['owner']);
    if (!key) throw new NotObservable('needs the owner cast key (graph:read and admin)');
    const other = await otherWorkspace(ctx, ['graph:read', 'admin']);
    const seeded = await ctx.api.send({ method: 'POST', path: '/definitions', key: other.key, body: minimalCreateBody(ctx) });
    const otherDef = isObject(seeded.response?.json) ? seeded.response.json.id : undefined;
    if (!ok2xx(seeded) || typeof otherDef !== 'string') throw new NotObservable('could not create a definition in the second workspace');
    const mine = await meWorkspace(ctx, { method: 'GET', path: '/me', key }, false);
    if (mine === other.workspaceId) throw new Error('the suite key and the new workspace report the same workspace id');

    // GET /me: named in headers or in the query (ignored or refused).
    for (const [where, req] of [
      ['headers', { method: 'GET', path: '/me', key, headers: headersNaming(other.workspaceId) }],
      ['query', { method: 'GET', path: '/me', key, query: queryNaming(other.workspaceId) }],
    ] as [string, ApiRequest][]) {
      await softAsync(ctx, async () => {
        const got = await meWorkspace(ctx, req, true);
        // Refused (undefined) or answered with a workspaceId, compared below.
        ctx.judged(CLAUSE);
        if (got !== undefined && got !== mine)
          throw new Finding({ clause: CLAUSE, message: `GET /me reported another workspace when one was named in the ${where}`, expected: `workspaceId ${mine}`, received: `workspaceId ${got}` });
      });
    }

    // GET /definitions: the other workspace's definition never shows because it was named.
    // When it shows even unnamed, the lists leak across workspaces anyway: that is AUTH-014's
    // finding (foreign-ids.ts), not evidence that the named workspace was used.
    const plain = await listAll(ctx, key, '/definitions', { query: { includeArchived: true }, maxPages: 2 });
    const leaky = idsOf(plain.items).has(otherDef.toLowerCase());
    const listings: [string, Parameters<typeof listAll>[3]][] = [
      ['headers', { headers: headersNaming(other.workspaceId), query: { includeArchived: true }, maxPages: 2 }],
      ['query', { query: { includeArchived: true, ...queryNaming(other.workspaceId) }, maxPages: 2 }],
    ];
    for (const [where, opts] of listings) {
      const seen = await listAll(ctx, key, '/definitions', opts);
      if (seen.failed) {
        if (refused(seen.failed)) {
          ctx.judged(CLAUSE);
          continue;
        }
        soft(ctx, () =>
          fail(
            `GET /definitions neither succeeded nor was refused when another workspace was named in the ${where}`,
            `2xx with the key's definitions, or a refusal (${REFUSALS.join(', ')})`,
            seen.failed!,
          ),
        );
        continue;
      }
      if (!leaky) ctx.judged(CLAUSE);
      if (!leaky && idsOf(seen.items).has(otherDef.toLowerCase())) {
        soft(ctx, () => fail(`GET /definitions listed the other workspace's definition when that workspace was named in the ${where}`, "only the key's workspace", seen.exchanges.at(-1)!));
      }
    }

    // POST /definitions: a create lands in the key's workspace wherever another one is named.
    const creates: [string, Omit<ApiRequest, 'key' | 'method' | 'path'>][] = [
      ['headers', { headers: headersNaming(other.workspaceId), body: minimalCreateBody(ctx) }],
      ['query', { query: queryNaming(other.workspaceId), body: minimalCreateBody(ctx) }],
      // Unknown body properties may be ignored or refused (docs/interpretations.md, DEF-025).
      ['body', { body: minimalCreateBody(ctx, bodyNaming(other.workspaceId)) }],
    ];
    const landed: { where: string; id: string; ex: Exchange }[] = [];
    for (const [where, extra] of creates) {
      const ex = await ctx.api.send({ method: 'POST', path: '/definitions', key, ...extra });
      const id = ok2xx(ex) && isObject(ex.response?.json) ? ex.response.json.id : undefined;
      if (typeof id === 'string') {
        ctx.cleanup(async () => {
          await ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body: { reason: 'conformance run clean-up' } });
        });
        landed.push({ where, id: id.toLowerCase(), ex });
        const ws = (ex.response?.json as Record<string, unknown>).workspace_id;
        // The record says where it landed: it must be the key's workspace (GET /me).
        ctx.judged(CLAUSE);
        if (ws !== mine) {
          const which = ws === other.workspaceId ? 'the named workspace' : "another workspace than the key's";
          soft(ctx, () => fail(`a definition created with another workspace named in the ${where} reports ${which}`, `workspace_id ${mine} (GET /me)`, ex));
        }
        continue;
      }
      if (refused(ex)) {
        ctx.judged(CLAUSE);
        continue;
      }
      soft(ctx, () =>
        fail(
          `a valid POST /definitions neither succeeded nor was refused when another workspace was named in the ${where}`,
          `2xx with a Definition in the key's workspace, or a refusal (${REFUSALS.join(', ')})`,
          ex,
        ),
      );
    }
    if (landed.length === 0) return;
    await checkLanding(ctx, key, other, landed, leaky);
  },
};

/**
 * The created definitions are listed for the key's workspace and not for the other one. With
 * `leaky` lists (they show other workspaces' records anyway), only a listing there that also
 * reports the other workspace as the definition's workspace counts.
 */
async function checkLanding(ctx: CheckContext, key: KeyHandle, other: { workspaceId: string; key: KeyHandle }, landed: { where: string; id: string; ex: Exchange }[], leaky: boolean): Promise<void> {
  const theirs = await listAll(ctx, other.key, '/definitions', { query: { includeArchived: true }, maxPages: 2 });
  const ours = await listAll(ctx, key, '/definitions', { query: { includeArchived: true }, maxPages: 2 });
  const ourIds = idsOf(ours.items);
  for (const { where, id, ex } of landed) {
    const there = theirs.items.find((i) => typeof i.id === 'string' && i.id.toLowerCase() === id);
    // One of the two listings below was looked at for this definition.
    if (!theirs.failed || (!ours.failed && ours.complete)) ctx.judged(CLAUSE);
    if (!theirs.failed && there && (!leaky || there.workspace_id === other.workspaceId)) {
      soft(ctx, () => {
        throw new Finding({
          clause: CLAUSE,
          message: `a definition created with another workspace named in the ${where} is listed in that workspace`,
          expected: "listed only in the key's workspace",
          received: brief(there),
          exchange: theirs.exchanges.at(-1)!,
          context: [ex],
        });
      });
    } else if (!ours.failed && ours.complete && !ourIds.has(id)) {
      soft(ctx, () => {
        throw new Finding({
          clause: CLAUSE,
          message: `a definition created with another workspace named in the ${where} is not listed in the key's workspace`,
          expected: `definition ${id} listed for the key`,
          received: `${ours.items.length} definitions, not that one`,
          exchange: ours.exchanges.at(-1)!,
          context: [ex],
        });
      });
    }
  }
}
