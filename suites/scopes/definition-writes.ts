/**
 * Permission rows "definition update, archive, merge-value" (admin), seed part 5 table and
 * 4.5-4.7. Refused keys act first on a victim definition, which is then read back (it must be
 * untouched); permitted keys act last, each where its write can succeed.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { judgeSweep, sweep, type Attempt } from '../_shared/access-judge.ts';
import { readDefinition } from './readback.ts';
import { enumValueSlugs, is2xx } from '../_shared/definitions.ts';
import { byScopes, castHolding, endpointScopes, fullKey, split } from './matrix.ts';
import { expectUntouched, markerFor, readVictim, setupDefinition } from './untouched.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';

const PERMITTED = castHolding(['admin']);
// Two listings of the victim (before and after the refused calls), one page each while the
// suite's workspace holds at most 200 definitions...
const READBACKS = 2;
// ...or two (a workspace holding more, or a walk ending on an empty page).
const MAX_READBACKS = 4;
/** Where a refused key was let through (runRow): a second victim, its clean-up archive and its read-backs. */
const AGAIN = 2 + MAX_READBACKS;

interface RowRun {
  operationId: string;
  row: string;
  what: string;
  /** Sends one key's write to `target` (the victim, for refused keys); `index` numbers the permitted keys, 0 for refused ones. */
  write(ctx: CheckContext, key: KeyHandle, marker: string, target: { id: string; slugs: string[] }, index: number): Promise<Exchange>;
  /** Where permitted key number `index` acts (default: the victim). */
  permittedTarget?(ctx: CheckContext, reader: KeyHandle, victim: { id: string; slugs: string[] }, index: number): Promise<{ id: string; slugs: string[] }>;
  createOverrides?: Record<string, unknown>;
  /**
   * After a key that should have been refused was let through, later refused keys act on a
   * fresh definition: the first one may now be in another state (archived), and answers about
   * that state (409) would blur what is observed about scopes.
   */
  freshAfterLetThrough?: boolean;
  /** The permitted keys act together (each on a target of its own); otherwise one after another on the victim. */
  permittedTogether?: boolean;
}

/** The common run of the three write rows. */
async function runRow(ctx: CheckContext, r: RowRun): Promise<void> {
  const required = await endpointScopes(r.operationId);
  const { refused, permitted } = split(ctx, required, r.what);
  const reader = fullKey(ctx);
  const made = await setupDefinition(ctx, reader, r.createOverrides);
  // A create answer without enum_values gives no slugs (a DEF-001 problem): the rows that need none still run.
  const victim = { id: made.id, slugs: enumValueSlugs(made) };
  const before = await readVictim(ctx, reader, victim.id);
  /** The refused keys' writes, each with its marker; one at a time, a let-through is followed by a fresh definition (freshAfterLetThrough). */
  const refusedPass = async (keys: readonly KeyHandle[], target: { id: string; slugs: string[] }, together: boolean) => {
    const markers = new Map<string, string>();
    let current = target;
    const attempts = await sweep(
      keys,
      byScopes(required),
      async (key) => {
        const m = markerFor(ctx, key, 'refused');
        markers.set(key.name, m);
        const ex = await r.write(ctx, key, m, current, 0);
        if (!together && r.freshAfterLetThrough && is2xx(ex)) {
          const d = await setupDefinition(ctx, reader, r.createOverrides);
          current = { id: d.id, slugs: enumValueSlugs(d) };
        }
        return ex;
      },
      { together },
    );
    return { attempts, markers };
  };
  // A refusal changes nothing: the refused keys act on the victim together.
  const first = await refusedPass(refused, victim, true);
  expectUntouched(ctx, first.attempts, first.markers, before, await readDefinition(ctx, reader, victim.id), r.what);
  let refusedAttempts = first.attempts;
  const letThrough = first.attempts.filter((a) => is2xx(a.ex));
  if (r.freshAfterLetThrough && letThrough.length > 0) {
    // A key let through changed the victim's state under the keys sent with it (an archived
    // definition may be answered 409 whatever the scopes): the others act again one at a time,
    // on a fresh definition, each let-through followed by another.
    const made2 = await setupDefinition(ctx, reader, r.createOverrides);
    const victim2 = { id: made2.id, slugs: enumValueSlugs(made2) };
    const before2 = await readVictim(ctx, reader, victim2.id);
    const second = await refusedPass(
      refused.filter((k) => !letThrough.some((a) => a.key === k)),
      victim2,
      false,
    );
    expectUntouched(ctx, second.attempts, second.markers, before2, await readDefinition(ctx, reader, victim2.id), r.what);
    refusedAttempts = refused.map((k) => letThrough.find((a) => a.key === k) ?? second.attempts.find((a) => a.key === k)!);
  }

  const permittedOne = async (key: KeyHandle, i: number): Promise<Attempt> => {
    const target = r.permittedTarget ? await r.permittedTarget(ctx, reader, victim, i) : victim;
    return { key, expect: 'allow', ex: await r.write(ctx, key, markerFor(ctx, key, 'permitted'), target, i) };
  };
  const permittedAttempts = await inParallel(permitted, r.permittedTogether ? CHECK_PARALLEL : 1, permittedOne);
  judgeSweep(ctx, [...refusedAttempts, ...permittedAttempts], { row: r.row, forbidden: 'ERR-007' }, r.what);
}

/** PATCH /definitions/{id}: each write renames the definition to its marker. */
export const definitionUpdate: CheckDef = {
  id: 'scopes/definition-update',
  title: 'PATCH /definitions/{id} is let through with admin and refused with 403 without it, changing nothing',
  clauses: ['SCOPE-003', 'SCOPE-012', 'ERR-007'],
  endpoints: ['updateDefinition'],
  needs: { mutation: true },
  // The victim, its archiving at clean-up, read-backs, the permitted patches.
  credits: 2 + READBACKS + PERMITTED,
  maxCredits: 2 + MAX_READBACKS + PERMITTED,
  run: (ctx) =>
    runRow(ctx, {
      operationId: 'updateDefinition',
      row: 'SCOPE-003',
      what: 'PATCH /definitions/{id}',
      write: (ctx, key, marker, target) => ctx.api.send({ method: 'PATCH', path: `/definitions/${target.id}`, key, body: { reason: marker, name: marker, description: marker } }),
    }),
};

/** POST /definitions/{id}/archive: refused keys try the victim; each permitted key archives a definition of its own. */
export const definitionArchive: CheckDef = {
  id: 'scopes/definition-archive',
  title: 'POST /definitions/{id}/archive is let through with admin and refused with 403 without it, changing nothing',
  clauses: ['SCOPE-004', 'SCOPE-012', 'ERR-007'],
  endpoints: ['archiveDefinition'],
  needs: { mutation: true },
  // The victim and its archiving at clean-up, read-backs, and per permitted key a definition of
  // its own and the archive under test (archiving it again at clean-up is refused: free).
  credits: 2 + READBACKS + 2 * PERMITTED,
  // A target may accept archiving those again.
  maxCredits: (1 + PERMITTED) * 2 + MAX_READBACKS + PERMITTED + AGAIN,
  run: (ctx) =>
    runRow(ctx, {
      operationId: 'archiveDefinition',
      row: 'SCOPE-004',
      what: 'POST /definitions/{id}/archive',
      write: (ctx, key, marker, target) => ctx.api.send({ method: 'POST', path: `/definitions/${target.id}/archive`, key, body: { reason: marker } }),
      freshAfterLetThrough: true,
      permittedTogether: true,
      permittedTarget: async (ctx, reader) => {
        const d = await setupDefinition(ctx, reader);
        return { id: d.id, slugs: [] };
      },
    }),
};

/** Two enum values per merge: refused keys try the first pair, permitted key i merges pair i. */
const pairs = Math.max(PERMITTED, 1);
const ENUM_VALUES = Array.from({ length: pairs * 2 }, (_, i) => ({ label: `value ${String.fromCharCode(97 + i)}` }));

/** POST /definitions/{id}/merge-value on a definition with two enum values per permitted key. */
export const definitionMerge: CheckDef = {
  id: 'scopes/definition-merge-value',
  title: 'POST /definitions/{id}/merge-value is let through with admin and refused with 403 without it, changing nothing',
  clauses: ['SCOPE-005', 'SCOPE-012', 'ERR-007'],
  endpoints: ['mergeDefinitionValue'],
  needs: { mutation: true },
  // The victim, its archiving at clean-up, read-backs, the permitted merges.
  credits: 2 + READBACKS + PERMITTED,
  maxCredits: 2 + MAX_READBACKS + PERMITTED + AGAIN,
  run: (ctx) =>
    runRow(ctx, {
      operationId: 'mergeDefinitionValue',
      row: 'SCOPE-005',
      what: 'POST /definitions/{id}/merge-value',
      createOverrides: { valueType: 'enum', enumValues: ENUM_VALUES },
      freshAfterLetThrough: true,
      write: (ctx, key, marker, target, i) => {
        const [fromSlug, intoSlug] = [target.slugs[2 * i], target.slugs[2 * i + 1]];
        if (!fromSlug || !intoSlug) throw new NotObservable(`the definition made with ${ENUM_VALUES.length} enum values came back with ${target.slugs.length}; no pair to merge`);
        return ctx.api.send({ method: 'POST', path: `/definitions/${target.id}/merge-value`, key, body: { fromSlug, intoSlug, reason: marker } });
      },
    }),
};
