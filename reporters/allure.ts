/**
 * Allure output for a run, through allure-vitest: the reporter writes `allure-results/`
 * (render with `allure generate`), and reporters/allure-setup.ts labels every check's test
 * with its clause ids, areas and levels and links it to the seed.
 *
 * Usage in a vitest config (or createVitest options):
 *   const allure = allureReporterConfig(outDir, { catalogPath, seedDoc });
 *   { reporters: [wgcReporter, allure.reporter], setupFiles: allure.setupFiles, provide: allure.provide }
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { AllureVitestReporterConfig } from 'allure-vitest/reporter';
import type { SeedDocument } from '../src/report/seed-link.ts';

export { default as AllureVitestReporter } from 'allure-vitest/reporter';

/** What the setup file reads in the workers (vitest `provide`/`inject`). */
export interface WgcAllureContext {
  /** The clause catalog (for levels and seed references). Default: the project's. */
  catalogPath?: string;
  /** Where the seed lives, for links to its sections. */
  seedDoc?: SeedDocument;
}

declare module 'vitest' {
  export interface ProvidedContext {
    wgcAllure?: WgcAllureContext;
  }
}

/** The module name vitest resolves the Allure reporter from. */
export const ALLURE_REPORTER = 'allure-vitest/reporter';
/** allure-vitest's own setup file (must run before ours). */
export const ALLURE_VITEST_SETUP_FILE = createRequire(import.meta.url).resolve('allure-vitest/setup');
/** Our setup file, labelling tests by clause. */
export const WGC_ALLURE_SETUP_FILE = fileURLToPath(new URL('./allure-setup.ts', import.meta.url));

/** The vitest settings that make a run also write Allure results. */
export interface AllureRunConfig {
  /** The reporter tuple for vitest's `reporters` (options: an AllureVitestReporterConfig). */
  reporter: [typeof ALLURE_REPORTER, Record<string, unknown>];
  /** Setup files, in order (allure-vitest's, then ours). */
  setupFiles: string[];
  /** For vitest's `provide`. */
  provide: { wgcAllure: WgcAllureContext };
  /** Where the results are written. */
  resultsDir: string;
}

/** Reporter tuple, setup files and provided context writing Allure results to `<outDir>/allure-results`. */
export function allureReporterConfig(outDir: string, context: WgcAllureContext = {}): AllureRunConfig {
  const resultsDir = join(outDir, 'allure-results');
  const options: AllureVitestReporterConfig = { resultsDir };
  return {
    reporter: [ALLURE_REPORTER, { ...options }],
    setupFiles: [ALLURE_VITEST_SETUP_FILE, WGC_ALLURE_SETUP_FILE],
    provide: { wgcAllure: context },
    resultsDir,
  };
}
