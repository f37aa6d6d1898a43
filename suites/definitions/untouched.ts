/**
 * What a PATCH must leave alone (DEF-028): every Definition field the PATCH does not name, and
 * the enum values archiveEnumValueSlugs does not name. Compared between the definition as it
 * was before the PATCH and the PATCH's answer, leaving out what may move anyway: updated_at,
 * reason (the latest write's, DEF-017's reading), the server's own fields and moves between
 * non-archived states (comparableRenderings), the slug of a renamed definition. Only what seed
 * 2.1 and 2.2 define is compared: a field of the server's own (a revision counter) may move.
 */
import type { Evidence } from '../../src/engine/finding.ts';
import { judged } from '../../src/engine/judged.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { comparableRenderings } from '../_shared/definitions.ts';
import { documentedEnumValue } from '../_shared/documented.ts';
import { brief, canonical, isObject } from '../_shared/json.ts';
import { snake } from './support.ts';

/** PATCH body fields that set one Definition field each (snake_case there). */
export const SIMPLE_FIELDS = ['name', 'description', 'instruction', 'refreshPolicy', 'captureEnabled', 'autoApplyThreshold', 'reviewThreshold', 'chatVisible'] as const;

/** Fields that may differ after any PATCH. */
const MAY_MOVE = new Set(['updated_at', 'reason', 'enum_values']);

/**
 * Evidence of fields and enum values the PATCH `patch` changed although it did not name them.
 * An enum value that disappeared under addEnumValues is DEF-018's (adding replaced the list).
 */
export function untouchedEvidence(patch: Record<string, unknown>, before: Record<string, unknown>, after: Record<string, unknown>, ex: Exchange): Evidence[] {
  const out: Evidence[] = [];
  const named = new Set(SIMPLE_FIELDS.filter((f) => patch[f] !== undefined).map(snake));
  if (named.has('name')) named.add('slug');
  const [x, y] = comparableRenderings(before, after);
  for (const field of Object.keys(x)) {
    if (named.has(field) || MAY_MOVE.has(field) || !Object.hasOwn(y, field)) continue;
    judged('DEF-028');
    if (canonical(x[field]) === canonical(y[field])) continue;
    out.push({ clause: 'DEF-028', message: `${field} changed although the PATCH did not name it`, expected: brief(x[field]), received: brief(y[field]), exchange: ex });
  }
  const archived = new Set(Array.isArray(patch.archiveEnumValueSlugs) ? patch.archiveEnumValueSlugs : []);
  const now = new Map((Array.isArray(after.enum_values) ? after.enum_values : []).filter(isObject).map((v) => [v.slug, v]));
  for (const value of Array.isArray(before.enum_values) ? before.enum_values.filter(isObject) : []) {
    if (archived.has(value.slug)) continue;
    judged('DEF-028');
    const later = now.get(value.slug);
    if (later === undefined) {
      const clause = patch.addEnumValues !== undefined ? 'DEF-018' : 'DEF-028';
      out.push({
        clause,
        message: `the enum value ${JSON.stringify(value.slug)} is gone after a PATCH that did not archive it${clause === 'DEF-018' ? ' (addEnumValues replaced the values instead of adding to them)' : ''}`,
        expected: brief(value),
        received: `${now.size} values: ${brief([...now.keys()])}`,
        exchange: ex,
      });
    } else if (canonical(documentedEnumValue(later)) !== canonical(documentedEnumValue(value))) {
      out.push({ clause: 'DEF-028', message: `the enum value ${JSON.stringify(value.slug)} changed although the PATCH did not name it`, expected: brief(value), received: brief(later), exchange: ex });
    }
  }
  return out;
}
