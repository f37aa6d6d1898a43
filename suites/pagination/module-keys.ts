/**
 * The moduleKeys filter of GET /definitions (seed 4.3). Its wire form is ambiguous (DEF-023):
 * each form of the catalog is tried against definitions whose module keys are known. A form
 * refused as invalid (400 or 422) is not a failure; a form that is ignored (the listing comes
 * back unfiltered, as for any unknown parameter) or that keeps only some of the keys (only
 * matching items, some left out: a server that reads a repeated plain key as its last value)
 * is the server not using that form, acceptable when another form filters; a form that lists
 * items of other modules while leaving matching ones out is a failure, and so is no form
 * filtering at all. An invalid module key must be refused in the forms the server understands.
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse, expectResponse, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { checkPropertyTrial } from '../../src/engine/property.ts';
import { parameterArbitraries } from '../../src/generators/index.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { describeVerdicts, filteredQuery, MODULE_KEYS_FORMS, probeForms, type FormVerdict, type KnownItem, type ModuleKeysForm } from '../_shared/paging-forms.ts';
import { idOf, MAX_LIMIT, walkOrNotObservable, WALK_MAX_PAGES } from '../_shared/paging-walk.ts';
import { READER, seed, WRITER } from './support.ts';
import { CHECK_PARALLEL, inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';

/** Filtering on two of three seeded modules shows both that matches are kept and that others are left out. */
const SEEDED = ['partners', 'vendors', 'advisors'] as const;
const FILTER = ['partners', 'vendors'] as const;
const PROBE_CREDITS = MODULE_KEYS_FORMS.length * WALK_MAX_PAGES;

export const moduleKeysFilter: CheckDef = {
  id: 'pagination/module-keys-filter',
  title: 'moduleKeys lists only definitions of the given modules (in a wire form the server accepts)',
  clauses: ['DEF-023'],
  endpoints: ['listDefinitions'],
  needs: { mutation: true },
  // Three creates and their clean-up, one filtered walk per wire form (one page each: only the
  // seeded definitions are live).
  credits: 2 * SEEDED.length + MODULE_KEYS_FORMS.length,
  // Filtered walks over a workspace holding more.
  maxCredits: 2 * SEEDED.length + PROBE_CREDITS,
  async run(ctx) {
    const key = ctx.key(WRITER);
    const known = await seed(ctx, key, SEEDED.length, SEEDED, 'modules');
    const verdicts = await probeForms(ctx, key, { keys: FILTER, known });
    const evidence = (v: FormVerdict | undefined, message: string): Finding =>
      new Finding({
        clause: 'DEF-023',
        message,
        expected: `only ${FILTER.join(' and ')} definitions, in at least one wire form`,
        received: describeVerdicts(verdicts),
        ...(v?.exchange ? { exchange: v.exchange } : {}),
      });
    const wrong = verdicts.find((v) => v.kind === 'wrong');
    if (wrong) throw evidence(wrong, `moduleKeys in the form ${wrong.form.name} was accepted but filtered wrongly: ${wrong.detail}`);
    // A form that kept only some of the keys is not this server's form when another one filters.
    if (verdicts.some((v) => v.kind === 'filters')) {
      // No form filtered wrongly, and one kept exactly the definitions of the given modules.
      ctx.judged('DEF-023');
      return;
    }
    const subset = verdicts.find((v) => v.kind === 'subset');
    if (subset) throw evidence(subset, `moduleKeys was not applied with both keys in any wire form: in the form ${subset.form.name} it ${subset.detail}`);
    const ignored = verdicts.find((v) => v.kind === 'ignored');
    if (ignored) throw evidence(ignored, 'moduleKeys was accepted but did not filter in any wire form');
    if (verdicts.every((v) => v.kind === 'refused')) throw evidence(verdicts[0], `moduleKeys was refused as invalid (${INVALID_STATUSES.join(' or ')}) in every wire form`);
    // Some form gave no usable listing at all (another status, a broken envelope, an endless walk).
    throw new NotObservable(`no wire form of moduleKeys gave a usable listing to judge: ${describeVerdicts(verdicts)}`);
  },
};

/** Invalid module keys: the clause's own case and the generator's enum violations (empty values left out: they may read as absent). */
async function invalidKeys(): Promise<fc.Arbitrary<string>> {
  const found = parameterArbitraries(await loadSpec(), 'listDefinitions', 'query').violations.filter((v) => v.path.startsWith('/moduleKeys/') && v.keyword === 'enum');
  if (found.length === 0) throw new Error('openapi.yaml: listDefinitions moduleKeys has no enum to violate');
  const generated = fc.oneof(...found.map((v) => v.value.map((x) => String(((x as Record<string, unknown>).moduleKeys as unknown[])[0]))));
  return fc.oneof(fc.constant('not_a_module'), generated).filter((k) => k !== '');
}

/** Known items to judge the forms with: seeded when mutations are allowed, else the listed ones (archived included). */
async function knownItems(ctx: CheckContext): Promise<{ key: KeyHandle; known: KnownItem[]; includeArchived: boolean; keys: string[] } | undefined> {
  if (!ctx.run.readOnly) {
    try {
      const writer = ctx.key(WRITER);
      return { key: writer, known: await seed(ctx, writer, 2, FILTER, 'modules'), includeArchived: false, keys: [FILTER[0]] };
    } catch (e) {
      if (!(e instanceof NotObservable)) throw e;
    }
  }
  const key = ctx.key(READER);
  const walk = await walkOrNotObservable(ctx, key, { limit: MAX_LIMIT, includeArchived: true });
  const known = walk.items.flatMap((i) => (idOf(i) !== undefined && typeof i.module_key === 'string' ? [{ id: idOf(i)!, module_key: i.module_key }] : []));
  const first = known[0]?.module_key;
  if (first === undefined || known.every((k) => k.module_key === first)) return undefined;
  return { key, known, includeArchived: true, keys: [first] };
}

export const moduleKeysRefused: CheckDef = {
  id: 'pagination/module-keys-refused',
  title: 'A moduleKeys value outside the six module keys is refused as invalid, 400 or 422 (in the wire forms the server understands)',
  clauses: ['PAGE-010'],
  endpoints: ['listDefinitions'],
  // Two definitions seeded and their clean-up, one filtered walk per wire form (one page each,
  // all of them filter on the reference); invalid values are refused, which is free.
  credits: 2 * FILTER.length + MODULE_KEYS_FORMS.length,
  // Under --read-only a walk of the listing instead of the seeding; filtered walks over a
  // workspace holding more; where no form filters, one valid listing per other form.
  maxCredits: 2 * FILTER.length + WALK_MAX_PAGES + PROBE_CREDITS + MODULE_KEYS_FORMS.length,
  async run(ctx) {
    const subject = await knownItems(ctx);
    const key = subject?.key ?? ctx.key(READER);
    const verdicts = subject ? await probeForms(ctx, key, subject) : [];
    const understood = verdicts.filter((v) => v.kind === 'filters').map((v) => v.form);
    // Without a form shown to filter, a form that refuses an invalid key (while accepting a valid one) still shows it is read.
    const candidates = understood.length > 0 ? understood : MODULE_KEYS_FORMS.filter((f) => !verdicts.some((v) => v.form === f && v.kind === 'refused'));
    const valid = subject?.keys[0] ?? 'customers';
    const send = (form: ModuleKeysForm, keys: readonly string[]) => ctx.api.send({ method: 'GET', path: '/definitions', key, query: filteredQuery(form, keys) });

    if (understood.length === 0) {
      for (const form of candidates) {
        const ok = await send(form, [valid]);
        if (!ok.response || ok.response.status >= 300) continue;
        const status = (await send(form, ['not_a_module'])).response?.status;
        if (status !== undefined && INVALID_STATUSES.includes(status)) {
          ctx.judged('PAGE-010');
          return;
        }
      }
      throw new NotObservable(
        `no wire form of moduleKeys could be shown to be read by the server (${verdicts.length ? describeVerdicts(verdicts) : 'no definitions of two modules to tell'}), so refusing an invalid key cannot be told from ignoring the parameter`,
      );
    }
    const expectRefused = async (keys: readonly string[]): Promise<void> => {
      // Every understood form at once (refusals change nothing), judged in order.
      const sent = await inParallel(understood, CHECK_PARALLEL, (form) => send(form, keys));
      for (const [i, form] of understood.entries()) {
        const ex = sent[i]!;
        const res = expectResponse('PAGE-010', ex);
        ctx.judged('PAGE-010');
        if (!INVALID_STATUSES.includes(res.status)) {
          throw new Finding({
            clause: 'PAGE-010',
            message: `moduleKeys ${JSON.stringify(keys)} in the form ${form.name}, which the server filters by, answered ${res.status}`,
            expected: `status ${INVALID_STATUSES.join(' or ')}`,
            received: describeResponse(res),
            exchange: ex,
          });
        }
      }
    };
    // An invalid key next to a valid one must not slip through either.
    await expectRefused([valid, 'not_a_module']);
    // The invalid keys side by side (their refusals are independent), one at a time where any is not refused.
    const property = { clause: 'PAGE-010', arbitrary: await invalidKeys(), predicate: (bad: string) => expectRefused([bad]) };
    await checkPropertyTrial(ctx, property, { n: WIDE_PARALLEL, run: property.predicate });
  },
};
