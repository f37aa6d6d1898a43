/**
 * Reads one raw configuration value (flag text, environment text or profile JSON) as its
 * field's kind. Errors are sentences naming the source and the expected form, e.g.
 * `--runs: expected a positive integer, got "abc"`.
 */
import type { FieldKind } from './fields.ts';

export type Coerced = { ok: true; value: unknown } | { ok: false; problem: string };

const show = (raw: unknown): string => (typeof raw === 'string' ? JSON.stringify(raw) : (JSON.stringify(raw) ?? String(raw)));
const fail = (expected: string, raw: unknown): Coerced => ({ ok: false, problem: `expected ${expected}, got ${show(raw)}` });

function integer(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isInteger(raw) ? raw : undefined;
  if (typeof raw === 'string' && /^\s*\d+\s*$/.test(raw)) return Number(raw.trim());
  return undefined;
}

/** Coerces `raw` to the field kind. */
export function coerce(kind: FieldKind, raw: unknown): Coerced {
  switch (kind) {
    case 'url': {
      if (typeof raw !== 'string') return fail('an http(s) URL', raw);
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return fail('an http(s) URL such as https://api.example.com', raw);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('an http(s) URL', raw);
      // Credentials in a URL would end up in every report; keys go through the profile's env refs.
      if (url.username || url.password) return { ok: false, problem: 'expected a URL without user:password@ credentials (they would be echoed in reports)' };
      if (url.search || url.hash) return fail('a URL without query or fragment', raw);
      return { ok: true, value: raw.replace(/\/+$/, '') };
    }
    case 'positiveInteger': {
      const n = integer(raw);
      return n !== undefined && n > 0 && Number.isSafeInteger(n) ? { ok: true, value: n } : fail('a positive integer', raw);
    }
    case 'nonNegativeInteger': {
      const n = integer(raw);
      return n !== undefined && Number.isSafeInteger(n) ? { ok: true, value: n } : fail('a non-negative integer', raw);
    }
    case 'seed': {
      const n = integer(raw);
      return n !== undefined && n <= 0xffffffff ? { ok: true, value: n } : fail('an integer from 0 to 4294967295', raw);
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      if (typeof raw === 'string') {
        const v = raw.trim().toLowerCase();
        if (['1', 'true', 'yes', 'on'].includes(v)) return { ok: true, value: true };
        if (['0', 'false', 'no', 'off', ''].includes(v)) return { ok: true, value: false };
      }
      return fail('true or false', raw);
    }
    case 'string':
      return typeof raw === 'string' && raw.length > 0 ? { ok: true, value: raw } : fail('a non-empty string', raw);
    case 'coverage': {
      const v = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim().toLowerCase() : '';
      if (v === 'full') return { ok: true, value: 'full' };
      if (/^\d+$/.test(v)) return { ok: true, value: Number(v) };
      const pct = /^(\d+(?:\.\d+)?)%$/.exec(v);
      if (pct && Number(pct[1]) <= 100) return { ok: true, value: `${Number(pct[1])}%` };
      return fail('a number of clauses (120), a percentage (90%) or full', raw);
    }
    case 'list': {
      const items = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw : undefined;
      if (!items || !items.every((s) => typeof s === 'string')) return fail('a list of names', raw);
      const names = (items as string[]).map((s) => s.trim()).filter((s) => s.length > 0);
      // Suite names, and check ids ("auth/revoked-key") for --check.
      const bad = names.find((s) => !/^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_.-]*)?$/i.test(s));
      return bad === undefined ? { ok: true, value: names } : fail('names (letters, digits, "-" or "_"; check ids as suite/check)', bad);
    }
    case 'duration': {
      // A bare number is seconds; units ms, s, m, h.
      const m = typeof raw === 'number' ? [String(raw), String(raw), 's'] : typeof raw === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(raw) : null;
      const unit = (m?.[2] ?? 's').toLowerCase();
      const ms = m ? Math.round(Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as Record<string, number>)[unit]!) : Number.NaN;
      return Number.isSafeInteger(ms) && ms > 0 ? { ok: true, value: ms } : fail('a duration such as 120s, 10m or 1500ms (a bare number is seconds)', raw);
    }
    case 'share': {
      // A fraction (0.5) or a percentage (50%).
      const v = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
      const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(v);
      const share = m ? Number(m[1]) / (m[2] ? 100 : 1) : Number.NaN;
      return share >= 0 && share <= 1 ? { ok: true, value: share } : fail('a share from 0 to 1 or a percentage, such as 0.5 or 50%', raw);
    }
    case 'shard': {
      const m = typeof raw === 'string' ? /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw) : null;
      const index = m ? Number(m[1]) : 0;
      const count = m ? Number(m[2]) : 0;
      return m && index >= 1 && count >= 1 && index <= count ? { ok: true, value: { index, count } } : fail('i/n with 1 ≤ i ≤ n, e.g. 2/4', raw);
    }
  }
}
