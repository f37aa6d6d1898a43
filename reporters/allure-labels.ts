/**
 * The Allure labels and links of a check's test, derived from its name
 * ("<checkId> <title> [CLAUSE-001, CLAUSE-002]") and the clause catalog. Pure, so it is
 * tested without Allure; reporters/allure-setup.ts applies it in each test.
 */
import type { Catalog } from '../src/catalog/load.ts';
import { areaOf } from '../src/catalog/types.ts';
import { parseTestName } from '../src/report/test-name.ts';
import { seedLinker, type SeedDocument } from '../src/report/seed-link.ts';

/** An Allure label (name and value). */
export interface AllureLabel {
  name: string;
  value: string;
}
/** An Allure link; `type` is "seed" for links to the seed document. */
export interface AllureLink {
  url: string;
  name: string;
  type: string;
}

/**
 * Labels: `clause`, `area`, `level` (custom, one per clause), `check`; plus the standard
 * epic (suite), feature (area), story (clause id), tag (level) and severity (critical for a
 * MUST clause) so Allure's built-in views group by them. Links: one per clause, to its seed
 * section. Level needs the catalog; without it the level labels are left out.
 */
export function allureLabelsFor(testName: string, catalog: Catalog | undefined, seedDoc: SeedDocument | undefined): { labels: AllureLabel[]; links: AllureLink[] } {
  const name = parseTestName(testName);
  if (name.clauses.length === 0) return { labels: [], links: [] };
  const link = seedLinker(seedDoc);
  const labels: AllureLabel[] = [{ name: 'check', value: name.checkId }];
  if (name.suite) labels.push({ name: 'epic', value: name.suite });
  const links: AllureLink[] = [];
  const seen = new Set<string>();
  const once = (l: AllureLabel) => {
    const key = `${l.name}\u0000${l.value}`;
    if (seen.has(key)) return;
    seen.add(key);
    labels.push(l);
  };
  let must = false;
  for (const id of name.clauses) {
    const area = areaOf(id);
    const clause = catalog?.byId.get(id);
    once({ name: 'clause', value: id });
    once({ name: 'story', value: id });
    once({ name: 'area', value: area });
    once({ name: 'feature', value: area });
    if (clause) {
      once({ name: 'level', value: clause.level });
      once({ name: 'tag', value: clause.level });
      if (clause.level === 'MUST') must = true;
      const url = link(clause.ref);
      if (url) links.push({ url, name: `${id}: seed ${clause.ref}`, type: 'seed' });
    }
  }
  if (catalog) labels.push({ name: 'severity', value: must ? 'critical' : 'normal' });
  return { labels, links };
}
