/**
 * The generated documentation cannot drift: every generated page (and generated region of a
 * hand-written page) must equal what its generator produces from the config table, the clause
 * catalog and the suite definitions. On failure: run `node bin/wgc.mjs docs` and commit.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigSchema, configReference } from '../../src/config/index.ts';
import { AREAS } from '../../src/catalog/types.ts';
import { AREA_TITLES } from '../../src/docs/clauses.ts';
import { generateDocs, loadDocSources, spliceRegion, syncDocs, DocsRegionError, type DocSources } from '../../src/docs/pages.ts';
import { docsCommand } from '../../src/cli/docs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let sources: DocSources;
beforeAll(async () => {
  sources = await loadDocSources(ROOT);
});

function capture(): { out: string[]; err: string[]; io: { out(t: string): void; err(t: string): void } } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t) => void out.push(t), err: (t) => void err.push(t) } };
}

describe('generated docs are committed as generated', () => {
  test('every generated file equals its generator output (else: node bin/wgc.mjs docs)', async () => {
    const files = await generateDocs(sources);
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['docs/configuration.md', 'docs/clauses.md', 'README.md']));
    for (const f of files) {
      const committed = await readFile(join(ROOT, f.path), 'utf8').catch(() => '(missing)');
      expect(committed, `${f.path} is out of date: run node bin/wgc.mjs docs and commit the result`).toBe(f.text);
    }
  });

  test('`wgc docs --check` agrees, and rejects unknown arguments', async () => {
    const ok = capture();
    expect(await docsCommand(['--check'], ok.io, ROOT)).toBe(0);
    expect(ok.out.join('')).toMatch(/docs\/clauses\.md: up to date/);
    const bad = capture();
    expect(await docsCommand(['--frobnicate'], bad.io, ROOT)).toBe(2);
    expect(bad.err.join('')).toContain('unknown argument --frobnicate');
  });
});

describe('the generators', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'wgc-docs-'));
    for (const p of ['README.md', 'docs/guide', 'examples/profiles/staging.json']) await cp(join(ROOT, p), join(tmp, p), { recursive: true });
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  test('write what is missing or stale, then report everything up to date; --check only reports', async () => {
    // The pages come from the scratch folder; the suite sources the clause page points into, from the package.
    const src: DocSources = { ...sources, read: (p) => (p.startsWith('suites/') ? sources.read(p) : readFile(join(tmp, p), 'utf8')) };
    const first = await syncDocs(tmp, src, { check: false });
    expect(first.find((c) => c.path === 'docs/clauses.md')?.state).toBe('created');
    expect((await syncDocs(tmp, src, { check: true })).every((c) => c.state === 'unchanged')).toBe(true);
    await writeFile(join(tmp, 'docs/clauses.md'), 'edited by hand\n');
    const stale = await syncDocs(tmp, src, { check: true });
    expect(stale.find((c) => c.path === 'docs/clauses.md')?.state).toBe('changed');
    expect(await readFile(join(tmp, 'docs/clauses.md'), 'utf8')).toBe('edited by hand\n');
  });

  test('a region needs both markers, in order', () => {
    expect(spliceRegion('a\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nb', 'f.md', 'x', 'new')).toBe('a\n<!-- generated:x -->\nnew\n<!-- /generated:x -->\nb');
    expect(() => spliceRegion('no markers', 'f.md', 'x', 'new')).toThrow(DocsRegionError);
    expect(() => spliceRegion('<!-- /generated:x --> <!-- generated:x -->', 'f.md', 'x', 'new')).toThrow(/needs the markers/);
  });

  test('the configuration reference documents every field of the config schema', () => {
    const documented = new Set(configReference().map((r) => r.field));
    expect(Object.keys(ConfigSchema.shape).filter((k) => !documented.has(k))).toEqual([]);
  });

  test('every area has a title, and the clause page has a section for every clause', async () => {
    expect(Object.keys(AREA_TITLES).sort()).toEqual([...AREAS].sort());
    const page = (await generateDocs(sources)).find((f) => f.path === 'docs/clauses.md')!.text;
    for (const c of sources.catalog.clauses) expect(page).toContain(`\n### ${c.id}\n`);
  });
});
