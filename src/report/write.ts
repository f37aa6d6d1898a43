/**
 * Writes every file rendering of a run result into one folder.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunResultSchema, type RunResult } from './model.ts';
import { renderJson, renderReportSchema } from './json.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';

/** File names `writeReports` uses, relative to its output folder. */
export const REPORT_FILES = {
  json: 'report.json',
  schema: 'report.schema.json',
  html: 'report.html',
  junit: 'junit.xml',
  markdown: 'summary.md',
} as const;

/**
 * Writes report.json (checked against the model first), report.schema.json, report.html,
 * junit.xml and summary.md into `outDir` (created if needed). Returns the written paths.
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
  return written;
}
