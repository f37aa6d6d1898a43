/**
 * `wgc diff BASE.json HEAD.json [--format text|markdown|html] [--allow-coverage-loss]
 * [--allow-catalog-change]`: what changed between two run reports. Exit 1 on any regression (a
 * clause newly failing, a worse verdict, a clause verified in BASE that HEAD did not verify
 * unless --allow-coverage-loss, an operation or change kind gone from the live catalog unless
 * --allow-catalog-change), 0 otherwise, 2 on bad input (the message names the file and the
 * problem).
 */
import { diffReports, renderDiffHtml, renderDiffMarkdown, renderDiffText } from '../report/diff.ts';
import { readReport, ReportReadError } from '../report/json.ts';
import { processIo, type CliIo } from '../report/io.ts';

const USAGE = 'usage: wgc diff BASE.json HEAD.json [--format text|markdown|html] [--allow-coverage-loss] [--allow-catalog-change]\n';

/** Runs `wgc diff`; returns the exit code. */
export async function diffCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  const files: string[] = [];
  let format = 'text';
  let allowCoverageLoss = false;
  let allowCatalogChange = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--format' || a.startsWith('--format=')) {
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (value !== 'text' && value !== 'markdown' && value !== 'html') {
        io.err(`wgc diff: --format must be text, markdown or html, got ${JSON.stringify(value ?? '')}\n${USAGE}`);
        return 2;
      }
      format = value;
    } else if (a === '--allow-coverage-loss') {
      allowCoverageLoss = true;
    } else if (a === '--allow-catalog-change') {
      allowCatalogChange = true;
    } else if (a === '--help' || a === '-h') {
      io.out(USAGE);
      return 0;
    } else if (a.startsWith('-')) {
      io.err(`wgc diff: unknown option ${a}\n${USAGE}`);
      return 2;
    } else files.push(a);
  }
  if (files.length !== 2) {
    io.err(`wgc diff: expected two report files, got ${files.length}\n${USAGE}`);
    return 2;
  }
  try {
    const base = readReport(files[0]!);
    const head = readReport(files[1]!);
    const d = diffReports(base, head, { allowCoverageLoss, allowCatalogChange });
    io.out(format === 'markdown' ? renderDiffMarkdown(d) : format === 'html' ? renderDiffHtml(d) : renderDiffText(d));
    return d.hasRegression ? 1 : 0;
  } catch (e) {
    if (e instanceof ReportReadError) {
      io.err(`wgc diff: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
