/**
 * The wire forms of the moduleKeys query parameter. The seed calls it a deepObject-style,
 * exploded array, which OpenAPI leaves undefined for arrays, so the catalog accepts three
 * forms (DEF-023 ambiguity). A server may understand any of them; each is judged by what the
 * listing does with items whose module keys are known: it filters, it is refused as invalid
 * (400, or 422), it is ignored (the parameter is treated as unknown, the listing is unfiltered),
 * it keeps only some of the keys (a subset of the matching items and nothing else: e.g. a
 * server reading a repeated plain key as its last value, as Rails and PHP do) or it is wrong.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { idOf, listQuery, MAX_LIMIT, walkDefinitions } from './paging-walk.ts';
import { CHECK_PARALLEL, inParallel } from './parallel.ts';

/** One wire form: its name as the catalog writes it, and its encoder (brackets percent-encoded). */
export interface ModuleKeysForm {
  name: string;
  encode(keys: readonly string[]): string;
}

const enc = encodeURIComponent;

/** The forms of the catalog's DEF-023 ambiguity, in the order the suite tries them. */
export const MODULE_KEYS_FORMS: readonly ModuleKeysForm[] = [
  { name: 'moduleKeys[0]=a&moduleKeys[1]=b', encode: (keys) => keys.map((k, i) => `moduleKeys%5B${i}%5D=${enc(k)}`).join('&') },
  { name: 'moduleKeys[]=a&moduleKeys[]=b', encode: (keys) => keys.map((k) => `moduleKeys%5B%5D=${enc(k)}`).join('&') },
  { name: 'moduleKeys=a&moduleKeys=b', encode: (keys) => keys.map((k) => `moduleKeys=${enc(k)}`).join('&') },
];

/** A definition whose module key the check knows (it created it, or listed it unfiltered). */
export interface KnownItem {
  id: string;
  module_key: string;
}

/** What one form did. */
export interface FormVerdict {
  form: ModuleKeysForm;
  /**
   * filters: only matching items, every known matching item present; refused: 400 or 422
   * (INVALID_STATUSES); ignored: the known items of other modules are listed too, as without
   * the filter; subset: only matching items, but some known matching ones left out (the form
   * reached the server as fewer keys than sent: when another form filters, this one is simply
   * not the server's); wrong: anything else that was accepted (items of other modules listed
   * while matching ones are left out, or while not every known one of other modules is);
   * error: no usable listing (other status, broken envelope, a walk that did not end).
   */
  kind: 'filters' | 'refused' | 'ignored' | 'subset' | 'wrong' | 'error';
  /** The first page's exchange (the evidence). */
  exchange: Exchange | undefined;
  detail: string;
}

/**
 * Lists with moduleKeys = `keys` in every wire form and judges each answer against `known`,
 * which must hold at least one item of a module in `keys` and one of a module outside it (so
 * that filtering and ignoring can be told apart).
 */
export async function probeForms(ctx: CheckContext, key: KeyHandle, opts: { keys: readonly string[]; known: readonly KnownItem[]; includeArchived?: boolean }): Promise<FormVerdict[]> {
  const wanted = new Set(opts.keys);
  const knownIn = opts.known.filter((k) => wanted.has(k.module_key));
  const knownOut = opts.known.filter((k) => !wanted.has(k.module_key));
  // The forms' walks are independent reads: side by side, their verdicts in form order.
  return inParallel(MODULE_KEYS_FORMS, CHECK_PARALLEL, async (form): Promise<FormVerdict> => {
    const q = { limit: MAX_LIMIT, moduleKeys: form.encode(opts.keys), ...(opts.includeArchived ? { includeArchived: true } : {}) };
    let walk;
    try {
      walk = await walkDefinitions(ctx, key, q);
    } catch (e) {
      if (!(e instanceof Finding)) throw e;
      const ex = e.evidence.exchange;
      const status = ex?.response?.status;
      const kind = status !== undefined && INVALID_STATUSES.includes(status) ? 'refused' : 'error';
      return { form, kind, exchange: ex, detail: kind === 'refused' ? String(status) : `${status ?? ex?.error?.kind ?? 'no response'}: ${e.evidence.message}` };
    }
    const exchange = walk.pages[0]?.exchange;
    if (walk.end !== 'complete') {
      return { form, kind: 'error', exchange, detail: `the filtered walk did not end (${walk.end})` };
    }
    const listed = new Set(
      walk.items
        .map(idOf)
        .filter((id): id is string => id !== undefined)
        .map((id) => id.toLowerCase()),
    );
    const offKey = walk.items.filter((i) => !wanted.has(String(i.module_key)));
    const missing = knownIn.filter((k) => !listed.has(k.id.toLowerCase()));
    const has = (k: KnownItem): boolean => listed.has(k.id.toLowerCase());
    if (offKey.length === 0 && missing.length === 0) {
      return { form, kind: 'filters', exchange, detail: `${walk.items.length} items, all of ${opts.keys.join(', ')}` };
    } else if (offKey.length > 0 && missing.length === 0 && knownOut.every(has)) {
      return { form, kind: 'ignored', exchange, detail: `listed items of other modules too (${describeOff(offKey)}), as without the filter` };
    } else if (offKey.length === 0) {
      return { form, kind: 'subset', exchange, detail: `only items of ${opts.keys.join(', ')}, but left out matching items ${describeMissing(missing)} (as if fewer keys had been sent)` };
    } else {
      const parts = [];
      if (offKey.length > 0) parts.push(`listed items of other modules (${describeOff(offKey)})`);
      if (missing.length > 0) parts.push(`left out matching items ${describeMissing(missing)}`);
      return { form, kind: 'wrong', exchange, detail: parts.join('; ') };
    }
  });
}

function describeOff(items: readonly Record<string, unknown>[]): string {
  const shown = items.slice(0, 3).map((i) => `${String(i.id)}: ${String(i.module_key)}`);
  return `${shown.join(', ')}${items.length > 3 ? ` and ${items.length - 3} more` : ''}`;
}

function describeMissing(items: readonly KnownItem[]): string {
  return items.map((m) => `${m.id} (${m.module_key})`).join(', ');
}

/** A one-line account of every verdict, for evidence. */
export function describeVerdicts(verdicts: readonly FormVerdict[]): string {
  return verdicts.map((v) => `${v.form.name}: ${v.kind} (${v.detail})`).join('; ');
}

/** The raw query of a listing filtered in one form (for single requests). */
export function filteredQuery(form: ModuleKeysForm, keys: readonly string[], extra: { limit?: number; includeArchived?: boolean } = {}): string {
  return listQuery({ ...extra, moduleKeys: form.encode(keys) });
}
