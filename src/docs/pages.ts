/**
 * Every generated documentation file, in one list: whole pages (docs/configuration.md,
 * docs/clauses.md, the example profile of supplied keys) and marked regions of hand-written
 * pages (README.md's catalog summary). `wgc docs` writes them; `wgc docs --check` and
 * test/docs/generated.test.ts fail when a committed file differs from what this produces.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { loadCatalog, type Catalog } from '../catalog/load.ts';
import { AREAS, areaOf } from '../catalog/types.ts';
import type { SuiteDef } from '../engine/check.ts';
import { discoverSuites, loadSuiteDefs } from '../engine/discover.ts';
import { AREA_TITLES, checkLocations, renderClausesPage } from './clauses.ts';
import { FAULTS } from '../reference/faults.ts';
import { familyFaults } from '../selftest/families.ts';
import { EXAMPLE_PROFILE, renderConfigurationPage, renderSuppliedKeysProfile, SUPPLIED_KEYS_PROFILE } from './configuration.ts';
import { renderControlClauses } from './control-clauses.ts';
import { renderCoveragePage } from './coverage.ts';
import { renderCreditPlans } from './credit-plans.ts';
import { loadSpec } from '../spec/load.ts';
import { cell, table } from './markdown.ts';

/** What the generators read. */
export interface DocSources {
  catalog: Catalog;
  suites: readonly SuiteDef[];
  /** info.version of specs/openapi.yaml, e.g. "v1-beta". */
  seedVersion: string;
  /** Reads a file of the package (relative path) as UTF-8. */
  read(path: string): Promise<string>;
  /** The files under a folder of the package (relative paths, recursively). */
  list(dir: string): Promise<string[]>;
}

/** One generated file: its path (relative to the package root) and its full expected text. */
export interface GeneratedFile {
  path: string;
  text: string;
}

/** A region of a hand-written page, between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`. */
interface Region {
  path: string;
  name: string;
  render(src: DocSources): string;
}

/** Whole generated files. */
const PAGES: readonly { path: string; render(src: DocSources): Promise<string> | string }[] = [
  { path: 'docs/configuration.md', render: async (s) => renderConfigurationPage(s.suites, await s.read(EXAMPLE_PROFILE)) },
  { path: 'docs/clauses.md', render: async (s) => renderClausesPage(s.catalog, s.suites, s.seedVersion, await checkLocations(s), await familyFaults(FAULTS)) },
  { path: SUPPLIED_KEYS_PROFILE, render: (s) => renderSuppliedKeysProfile(s.suites) },
  { path: 'docs/coverage.md', render: async (s) => renderCoveragePage(await loadSpec(), s.suites) },
];

/** Generated regions of hand-written pages. */
const REGIONS: readonly Region[] = [
  { path: 'README.md', name: 'catalog', render: renderCatalogSummary },
  { path: 'docs/guide/ci.md', name: 'credit-plans', render: (s) => renderCreditPlans(s.suites) },
  { path: 'docs/guide/certify.md', name: 'control-clauses', render: (s) => renderControlClauses(s.catalog) },
];

/** The README's summary of what the suite checks, from the catalog. */
export function renderCatalogSummary(src: DocSources): string {
  const clauses = src.catalog.clauses;
  const must = clauses.filter((c) => c.level === 'MUST').length;
  const observable = clauses.filter((c) => !c.unobservable).length;
  const checks = src.suites.reduce((n, s) => n + s.checks.length, 0);
  const areas = AREAS.filter((a) => clauses.some((c) => areaOf(c.id) === a));
  return [
    `The catalog encodes the API document **${src.seedVersion}** as **${clauses.length} clauses** (${must} MUST, ${clauses.length - must} SHOULD) in`,
    `${areas.length} areas; ${observable} of them are observable by a client, and ${src.suites.length} suites of ${checks} checks verify`,
    'them. The rest stay in the catalog with the reason no client can observe them.',
    '',
    table(
      ['Area', 'What', 'Clauses', 'Observable'],
      areas.map((a) => {
        const inArea = clauses.filter((c) => areaOf(c.id) === a);
        return [a, cell(AREA_TITLES[a]), String(inArea.length), String(inArea.filter((c) => !c.unobservable).length)];
      }),
      ['l', 'l', 'r', 'r'],
    ),
  ].join('\n');
}

/** Loads what the generators read from a package root. */
export async function loadDocSources(root: string): Promise<DocSources> {
  const catalog = loadCatalog(join(root, 'specs', 'clauses.yaml'));
  const suites = await loadSuiteDefs(await discoverSuites(join(root, 'suites')), root);
  const openapi = parse(await readFile(join(root, 'specs', 'openapi.yaml'), 'utf8')) as { info?: { version?: unknown } };
  const seedVersion = typeof openapi.info?.version === 'string' ? openapi.info.version : 'unknown version';
  return {
    catalog,
    suites,
    seedVersion,
    read: (p) => readFile(join(root, p), 'utf8'),
    list: async (dir) => (await readdir(join(root, dir), { recursive: true })).map((f) => `${dir}/${f.split('\\').join('/')}`).sort(),
  };
}

/** A hand-written page lacks the markers of its generated region. */
export class DocsRegionError extends Error {
  override name = 'DocsRegionError';
}

/** Replaces the text between a region's markers (the markers stay). */
export function spliceRegion(text: string, path: string, name: string, body: string): string {
  const open = `<!-- generated:${name} -->`;
  const close = `<!-- /generated:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new DocsRegionError(`${path}: needs the markers ${open} and ${close} (in that order) around its generated ${name} section`);
  return `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
}

/** Every generated file with the text it should have. */
export async function generateDocs(src: DocSources): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  for (const p of PAGES) files.push({ path: p.path, text: await p.render(src) });
  for (const r of REGIONS) files.push({ path: r.path, text: spliceRegion(await src.read(r.path), r.path, r.name, r.render(src)) });
  return files;
}

/** What `wgc docs` did or would do to one file. */
export interface DocsChange {
  path: string;
  state: 'unchanged' | 'changed' | 'created';
}

/**
 * Compares the generated files with the ones under `root`; writes the differing ones unless
 * `check` is set. Returns one entry per generated file.
 */
export async function syncDocs(root: string, src: DocSources, options: { check: boolean }): Promise<DocsChange[]> {
  const changes: DocsChange[] = [];
  for (const f of await generateDocs(src)) {
    const current = await readFile(join(root, f.path), 'utf8').catch(() => undefined);
    const state = current === undefined ? 'created' : current === f.text ? 'unchanged' : 'changed';
    if (state !== 'unchanged' && !options.check) {
      await mkdir(dirname(join(root, f.path)), { recursive: true });
      await writeFile(join(root, f.path), f.text, 'utf8');
    }
    changes.push({ path: f.path, state });
  }
  return changes;
}
