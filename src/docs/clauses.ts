/**
 * docs/clauses.md: the clause catalog as a browsable page. For each clause: id, level, seed
 * reference, statement, the checks that name it (from the suite definitions), what observing
 * it needs, the readings accepted where the seed is ambiguous, and why a clause no client can
 * observe is not checked.
 */
import type { Catalog } from '../catalog/load.ts';
import { AREAS, ambiguitiesOf, areaOf, type Area, type Clause } from '../catalog/types.ts';
import type { CheckDef, SuiteDef } from '../engine/check.ts';
import { AMBIENT_ENVELOPE } from '../engine/ambient.ts';
import { headingSlug } from '../report/seed-link.ts';
import { cell, code, generatedBanner, inline, table } from './markdown.ts';
import type { FaultDef } from '../reference/faults.ts';

/** What each area prefix covers, with its parts of the seed. A test keeps it complete. */
export const AREA_TITLES: Record<Area, string> = {
  SVC: 'Service-wide rules (seed part 1)',
  DEF: 'Definitions (seed 2.1-2.2, 3, 4.3-4.7)',
  ENV: 'Collection envelope (seed 2.3, 8)',
  ME: 'Key introspection (seed 2.4, 4.2)',
  TRACE: 'Decision traces (seed 2.6, 2.7)',
  IDEM: 'Idempotency (seed 4.1)',
  OPS: 'Catalog operations and other endpoints (seed 4.8, 4.9)',
  AUTH: 'Authentication (seed 5.1-5.4, 5.9)',
  SCOPE: 'Scopes (seed 5.5 and the permission table)',
  ROLE: 'Workspace roles (seed 5.6 and the permission table)',
  GRANT: 'Grant changes (seed 5.7-5.8)',
  ERR: 'Error envelope (seed part 7)',
  PAGE: 'Paging (seed part 8)',
  BILL: 'Billing (seed part 8)',
  LIMIT: 'Other limits (seed part 8)',
  DATA: 'Stored graph data, traces and decision inputs (seed 4.9)',
  VER: 'Versioning (seed part 9)',
};

const AMBIENT_IDS: readonly string[] = Object.values(AMBIENT_ENVELOPE);

/** A check with its suite. */
interface NamedCheck {
  suite: string;
  check: CheckDef;
}

/** Clause id → the checks that name it, in suite order. */
export function checksByClause(suites: readonly SuiteDef[]): Map<string, NamedCheck[]> {
  const map = new Map<string, NamedCheck[]>();
  for (const s of suites) {
    for (const check of s.checks) {
      for (const id of check.clauses) map.set(id, [...(map.get(id) ?? []), { suite: s.name, check }]);
    }
  }
  return map;
}

/** "keys: admin and graph:read · test-control protocol · usage ledger · sends mutations" */
export function needsText(c: Clause): string {
  const parts = [`keys: ${c.observe.keys}`];
  if (c.observe.control) parts.push('the test-control protocol');
  if (c.observe.ledger) parts.push('the usage ledger');
  if (c.observe.mutation) parts.push('sends mutations (disabled by `--read-only`)');
  return parts.join(' · ');
}

const areaHeading = (a: Area): string => `${a}: ${AREA_TITLES[a]}`;

/** Check id → where it is defined ("suites/auth/basics.ts:42"), read from the suite sources. */
export async function checkLocations(src: { list(dir: string): Promise<string[]>; read(path: string): Promise<string> }): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const file of (await src.list('suites')).filter((f) => f.endsWith('.ts'))) {
    (await src.read(file)).split('\n').forEach((line, i) => {
      const m = /^\s*id: '([a-z0-9-]+\/[a-z0-9.-]+)',/.exec(line);
      if (m && !out.has(m[1]!)) out.set(m[1]!, `${file}:${i + 1}`);
    });
  }
  return out;
}

/** Faults (hand-written and generated, see `wgc selftest`) by the clause they break. */
function faultsByClause(faults: readonly FaultDef[]): Map<string, FaultDef[]> {
  const map = new Map<string, FaultDef[]>();
  for (const f of faults) for (const id of f.clauses) map.set(id, [...(map.get(id) ?? []), f]);
  return map;
}

/** "`fault-a`, `fault-b`; generated: 12 bounds, 3 rule-cells (2 not observable by any client)". */
function faultsText(faults: readonly FaultDef[]): string {
  const named = faults.filter((f) => !f.family).map((f) => code(f.name));
  const families = new Map<string, number>();
  for (const f of faults) if (f.family) families.set(f.family, (families.get(f.family) ?? 0) + 1);
  const unobservable = faults.filter((f) => f.unobservable).length;
  const generated = [...families].map(([fam, n]) => `${n} ${fam}`).join(', ');
  return [named.join(', '), generated ? `generated: ${generated}${unobservable ? ` (${unobservable} not observable by any client)` : ''}` : ''].filter(Boolean).join('; ');
}

function clauseSection(c: Clause, checks: readonly NamedCheck[], where: ReadonlyMap<string, string>, faults: readonly FaultDef[]): string[] {
  const out = [`### ${c.id}`, '', `**${c.level}** · seed ${inline(c.ref)}`, '', inline(c.statement), ''];
  if (c.unobservable) {
    out.push(`- **Not observable by any client:** ${inline(c.unobservable)}`);
  } else {
    const how = checks.map((n) => {
      const at = where.get(n.check.id);
      const [file, line] = at ? at.split(':') : [];
      return `${code(n.check.id)}${at ? ` ([${at}](../${file}#L${line}))` : ''} (${inline(n.check.title)})`;
    });
    if (AMBIENT_IDS.includes(c.id)) how.push('every error answer of every other check (ambient, `src/engine/ambient.ts`)');
    out.push(how.length > 0 ? `- **Checked by:** ${how.join('; ')}` : '- **Checked by:** no check names this clause yet; runs report it not observable ("no check ran for this clause")');
    out.push(`- **Observing it needs:** ${inline(needsText(c))}`);
    out.push(faults.length > 0 ? `- **Faults that break it** (\`wgc selftest\`, the reference's switches): ${faultsText(faults)}` : '- **Faults that break it:** none yet');
  }
  for (const a of ambiguitiesOf(c)) {
    out.push(`- **Where the seed leaves room:** ${inline(a.question)} Accepted: ${a.accepted.map(inline).join('; ')}.${a.note ? ` ${inline(a.note)}` : ''}`);
  }
  out.push('');
  return out;
}

/** The clause catalog page. `seedVersion` is the API version the catalog encodes (openapi info.version). */
export function renderClausesPage(catalog: Catalog, suites: readonly SuiteDef[], seedVersion: string, where: ReadonlyMap<string, string> = new Map(), faults: readonly FaultDef[] = []): string {
  const byClause = checksByClause(suites);
  const breaking = faultsByClause(faults);
  const clauses = catalog.clauses;
  const must = clauses.filter((c) => c.level === 'MUST').length;
  const observable = clauses.filter((c) => !c.unobservable);
  const areas = AREAS.filter((a) => clauses.some((c) => areaOf(c.id) === a));
  const unchecked = observable.filter((c) => !byClause.has(c.id) && !AMBIENT_IDS.includes(c.id));
  const out: string[] = [
    generatedBanner('specs/clauses.yaml and the suite definitions (suites/*/index.ts)'),
    '',
    '# The clause catalog',
    '',
    `Every normative statement of the Workspace Graph and ICP Service API (${inline(seedVersion)}) that a`,
    `client could observe, once, with a stable id: **${clauses.length} clauses** (${must} MUST,`,
    `${clauses.length - must} SHOULD), of which **${observable.length} are observable** by a client.`,
    'The others stay in the catalog with the reason no client can observe them. The source is',
    '[`specs/clauses.yaml`](../specs/clauses.yaml); `wgc clauses` prints it as a table and',
    '`wgc clauses --json` as JSON.',
    '',
    "A clause's outcome in a run is the highest over the checks that name it (disabled < not",
    'observable < passed < harness error < failed). A failed MUST makes the target not conformant;',
    'a failed SHOULD is a warning. Where the seed allows more than one behaviour, every accepted',
    'reading is listed and the checks accept all of them (reasoning in',
    '[interpretations.md](interpretations.md)).',
    '',
    '## Areas',
    '',
    table(
      ['Area', 'Clauses', 'MUST', 'SHOULD', 'Observable', 'Checked by suites'],
      areas.map((a) => {
        const inArea = clauses.filter((c) => areaOf(c.id) === a);
        const suitesOf = [...new Set(inArea.flatMap((c) => (byClause.get(c.id) ?? []).map((n) => n.suite)))];
        return [
          `[${cell(areaHeading(a))}](#${headingSlug(areaHeading(a))})`,
          String(inArea.length),
          String(inArea.filter((c) => c.level === 'MUST').length),
          String(inArea.filter((c) => c.level === 'SHOULD').length),
          String(inArea.filter((c) => !c.unobservable).length),
          suitesOf.length > 0 ? suitesOf.join(', ') : '—',
        ];
      }),
      ['l', 'r', 'r', 'r', 'r', 'l'],
    ),
    '',
    '## Suites',
    '',
    '`wgc run --suite NAME` runs one suite (repeat the flag for several); the clauses only the',
    'other suites name are then reported as disabled.',
    '',
    table(
      ['Suite', 'What it checks', 'Checks', 'Clauses named'],
      suites.map((s) => [code(s.name), cell(s.title), String(s.checks.length), String(new Set(s.checks.flatMap((c) => c.clauses)).size)]),
      ['l', 'l', 'r', 'r'],
    ),
    '',
  ];
  if (unchecked.length > 0) {
    out.push(`Observable clauses no check names yet (${unchecked.length}): ${unchecked.map((c) => `[${c.id}](#${c.id.toLowerCase()})`).join(', ')}.`, '');
  }
  for (const a of areas) {
    out.push(`## ${areaHeading(a)}`, '');
    for (const c of clauses.filter((x) => areaOf(x.id) === a)) out.push(...clauseSection(c, byClause.get(c.id) ?? [], where, breaking.get(c.id) ?? []));
  }
  return out.join('\n');
}
