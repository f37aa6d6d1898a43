/**
 * Vitest setup file for Allure runs (listed by `allureReporterConfig`, after allure-vitest's
 * own setup): before each test, labels it with its clause ids, areas and levels and links
 * each clause to its seed section. Reads the catalog path and seed location the run
 * provided (`inject('wgcAllure')`); never reads the environment.
 */
import { beforeEach, inject } from 'vitest';
import { labels, links } from 'allure-js-commons';
import { loadCatalog, type Catalog } from '../src/catalog/load.ts';
import { allureLabelsFor } from './allure-labels.ts';
import type { WgcAllureContext } from './allure.ts';

function catalogOf(ctx: WgcAllureContext | undefined): Catalog | undefined {
  try {
    return loadCatalog(ctx?.catalogPath);
  } catch {
    // No readable catalog: tests are still labelled by clause and area, just not by level.
    return undefined;
  }
}

beforeEach(async ({ task }) => {
  const ctx = inject('wgcAllure');
  const { labels: l, links: k } = allureLabelsFor(task.name, catalogOf(ctx), ctx?.seedDoc);
  if (l.length > 0) await labels(...l);
  if (k.length > 0) await links(...k);
});
