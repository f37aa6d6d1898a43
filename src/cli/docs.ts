/**
 * `wgc docs [--check]`: regenerates the generated documentation (docs/configuration.md,
 * docs/clauses.md, examples/profiles/supplied-keys.json and the catalog summary in README.md)
 * from the config table, the clause catalog and the suite definitions. With --check nothing is
 * written: exit 1 when a file is out of date (for CI), 0 when all are current, 2 on usage or
 * input errors.
 */
import { fileURLToPath } from 'node:url';
import { CatalogError } from '../catalog/load.ts';
import { SuiteLoadError } from '../engine/discover.ts';
import { DocsRegionError, loadDocSources, syncDocs } from '../docs/pages.ts';
import { processIo, type CliIo } from '../report/io.ts';

/** The package root: the generated files live in this checkout. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const USAGE = `usage: wgc docs [--check]

Regenerates docs/configuration.md, docs/clauses.md, examples/profiles/supplied-keys.json and
the catalog summary in README.md. --check writes nothing and exits 1 when any is out of date.
`;

/** Runs `wgc docs`; returns the exit code. */
export async function docsCommand(argv: string[], io: CliIo = processIo, root: string = PACKAGE_ROOT): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE);
    return 0;
  }
  const unknown = argv.find((a) => a !== '--check');
  if (unknown !== undefined) {
    io.err(`wgc docs: unknown argument ${unknown}\n${USAGE}`);
    return 2;
  }
  const check = argv.includes('--check');
  try {
    const changes = await syncDocs(root, await loadDocSources(root), { check });
    const stale = changes.filter((c) => c.state !== 'unchanged');
    for (const c of changes) {
      const what = c.state === 'unchanged' ? 'up to date' : check ? `out of date (${c.state === 'created' ? 'missing' : 'differs'})` : c.state === 'created' ? 'created' : 'updated';
      io.out(`${c.path}: ${what}\n`);
    }
    if (check && stale.length > 0) {
      io.err(`wgc docs: ${stale.length} generated file${stale.length === 1 ? ' is' : 's are'} out of date; run node bin/wgc.mjs docs and commit the result\n`);
      return 1;
    }
    return 0;
  } catch (e) {
    if (e instanceof CatalogError || e instanceof SuiteLoadError || e instanceof DocsRegionError) {
      io.err(`wgc docs: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
