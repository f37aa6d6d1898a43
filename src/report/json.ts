/**
 * The JSON rendering (the model as is), its published JSON Schema (generated from the zod
 * model; committed as specs/report.schema.json), and the reader used by diff and merge.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { FORMAT_VERSION, RunResultSchema, type RunResult } from './model.ts';

/** The committed copy of the report's JSON Schema. */
export const REPORT_SCHEMA_PATH = fileURLToPath(new URL('../../specs/report.schema.json', import.meta.url));
/** `$id` of the published schema. */
export const REPORT_SCHEMA_ID = `urn:wg-conformance:report:v${FORMAT_VERSION}`;

/** The report's JSON Schema (draft 2020-12), generated from RunResultSchema. */
export function reportJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(RunResultSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, $id: REPORT_SCHEMA_ID, ...rest };
}

/** The schema file's text (stable formatting, trailing newline). */
export function renderReportSchema(): string {
  return `${JSON.stringify(reportJsonSchema(), null, 2)}\n`;
}

/** report.json text. */
export function renderJson(result: RunResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** Why a file could not be read as a report; the message names the file and the problem. */
export class ReportReadError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'ReportReadError';
  }
}

/** Parses report JSON text, refusing anything that is not a valid report of this format version. */
export function parseReport(text: string, file: string): RunResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ReportReadError(file, `not JSON (${(e as Error).message})`);
  }
  if (!data || typeof data !== 'object' || !('formatVersion' in data)) {
    throw new ReportReadError(file, 'not a wgc report (no formatVersion)');
  }
  const version = (data as { formatVersion: unknown }).formatVersion;
  if (version !== FORMAT_VERSION) {
    throw new ReportReadError(file, `report formatVersion ${JSON.stringify(version)} is not supported (this wgc reads ${FORMAT_VERSION})`);
  }
  const parsed = RunResultSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const more = parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more problems)` : '';
    throw new ReportReadError(file, `not a valid wgc report: ${issue.path.join('.') || '(root)'}: ${issue.message}${more}`);
  }
  return parsed.data;
}

/** Reads and validates a report file. Throws ReportReadError naming the file and the problem. */
export function readReport(file: string): RunResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ReportReadError(file, code === 'ENOENT' ? 'file not found' : `cannot be read (${(e as Error).message})`);
  }
  return parseReport(text, file);
}
