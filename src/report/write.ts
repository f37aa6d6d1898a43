/**
 * Writes every file rendering of a run result into one folder.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunResultSchema, type RunResult } from './model.ts';
import { renderJson, renderReportSchema } from './json.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { REPRODUCE_DIR, reproductionFile, reproductionScript } from './reproduce.ts';

export { reproductionFile } from './reproduce.ts';

/** File names `writeReports` uses, relative to its output folder. */
export const REPORT_FILES = {
  json: 'report.json',
  schema: 'report.schema.json',
  html: 'report.html',
  junit: 'junit.xml',
  markdown: 'summary.md',
  /** Folder of the failures' reproduction scripts, one per failing check. */
  reproduce: REPRODUCE_DIR,
} as const;

/**
 * Writes report.json (checked against the model first), report.schema.json, report.html,
 * junit.xml, summary.md and, when something failed, reproduce/<check>.sh (one runnable
 * script per failing check) into `outDir` (created if needed). Returns the written paths.
 */
export async function writeReports(result: RunResult, outDir: string): Promise<string[]> {
  // A report that does not match its own schema is a bug here; refuse to publish it.
  const checked = RunResultSchema.parse(result);
  await mkdir(outDir, { recursive: true });
  const files: [string, string][] = [
    [REPORT_FILES.json, renderJson(checked)],
    [REPORT_FILES.schema, renderReportSchema()],
    [REPORT_FILES.html, renderHtml(checked)],
    [REPORT_FILES.junit, renderJunit(checked)],
    [REPORT_FILES.markdown, renderMarkdown(checked)],
  ];
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(outDir, name);
    await writeFile(path, text, 'utf8');
    written.push(path);
  }
  const scripts = checked.checks.flatMap((c) => {
    const script = reproductionScript(
      c,
      checked.meta,
      checked.clauses.flatMap((cl) => cl.evidence.filter((e) => e.checkId === c.checkId)),
    );
    return script ? [[reproductionFile(c.checkId), script] as const] : [];
  });
  if (scripts.length > 0) {
    const dir = join(outDir, REPORT_FILES.reproduce);
    await mkdir(dir, { recursive: true });
    for (const [name, script] of scripts) {
      await writeFile(join(dir, name), script, 'utf8');
      await chmod(join(dir, name), 0o755);
      written.push(join(dir, name));
    }
  }
  return written;
}
