import { loadRules } from '../src/catalog/rules.ts';
import { loadCatalog } from '../src/catalog/load.ts';
import { discoverSuites, loadSuiteDefs } from '../src/engine/discover.ts';
import { loadSpec } from '../src/spec/load.ts';
import { endpointsFor, covers } from '../src/docs/rule-cells.ts';
const root = process.cwd();
const reg = loadRules();
const cat = loadCatalog(root + '/specs/clauses.yaml');
const suites = await loadSuiteDefs(await discoverSuites(root + '/suites'), root);
const spec = await loadSpec();
const checks = suites.flatMap((s) => s.checks);
const opIds = spec.operations.map((o) => o.operationId);
const byEp = new Map(spec.operations.map((o) => [`${o.method} ${o.path}`, o.operationId]));
let cells = 0,
  covered = 0,
  inferred = 0,
  unobs = 0,
  gaps: string[] = [];
const kinds = new Map<string, number>();
for (const e of reg.entries) {
  if (!e.clauses) continue;
  const rows = new Set<string>();
  for (const g of e.governs) {
    if (byEp.has(g)) rows.add(byEp.get(g)!);
    else if (g === 'every-endpoint') opIds.forEach((o) => rows.add(o));
    else kinds.set(g, (kinds.get(g) ?? 0) + 1);
  }
  for (const c of e.clauses) {
    const clause = cat.clauses.find((x) => x.id === c);
    for (const r of rows) {
      cells++;
      if (clause?.unobservable) {
        unobs++;
        continue;
      }
      const j = checks.filter((k) => covers(endpointsFor(k, c), r));
      if (j.length) {
        covered++;
        continue;
      }
      const any = checks.filter((k) => k.clauses.includes(c));
      if (any.length && rows.size === 1) {
        inferred++;
        continue;
      }
      gaps.push(`${e.place} ${c} ${r} (${any.length} checks judge ${c})`);
    }
  }
}
console.log({ cells, covered, inferred, unobs, gaps: gaps.length });
console.log(
  [...kinds]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}:${n}`)
    .join(' '),
);
console.log(gaps.slice(0, 400).join('\n'));
