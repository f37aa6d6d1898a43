import { describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildRunResult } from '../../src/report/build.ts';
import { parseReport, readReport, renderJson, renderReportSchema, REPORT_SCHEMA_PATH, ReportReadError } from '../../src/report/json.ts';
import { writeReports } from '../../src/report/write.ts';
import { fixtureCatalog, fixtureMeta, mixedResults, passingResults } from './fixtures/results.ts';

const catalog = fixtureCatalog();

describe('report.json and its published schema', () => {
  test('specs/report.schema.json is up to date with the model (update with `vitest -u`)', async () => {
    await expect(renderReportSchema()).toMatchFileSnapshot(REPORT_SCHEMA_PATH);
  });

  test('reports validate against the published schema', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(readFileSync(REPORT_SCHEMA_PATH, 'utf8')) as object);
    for (const results of [mixedResults(), passingResults(), []]) {
      const json = JSON.parse(renderJson(buildRunResult(results, catalog, fixtureMeta())));
      expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    }
    const broken = JSON.parse(renderJson(buildRunResult(mixedResults(), catalog, fixtureMeta())));
    broken.clauses[0].outcome = 'great';
    expect(validate(broken)).toBe(false);
  });

  test('writeReports writes every rendering, the schema next to the report, and the JSON round-trips', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-report-'));
    const result = buildRunResult(mixedResults(), catalog, fixtureMeta());
    const files = await writeReports(result, dir);
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual(['report.json', 'report.schema.json', 'report.html', 'junit.xml', 'summary.md']);
    expect(readFileSync(join(dir, 'report.schema.json'), 'utf8')).toBe(renderReportSchema());
    expect(readReport(join(dir, 'report.json'))).toEqual(result);
  });
});

describe('reading reports', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wgc-read-'));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  test.each([
    ['missing.json', null, /missing\.json: file not found$/],
    ['garbage.json', 'not json', /garbage\.json: not JSON/],
    ['other.json', '{"hello":1}', /other\.json: not a wgc report \(no formatVersion\)$/],
    ['future.json', '{"formatVersion":2}', /future\.json: report formatVersion 2 is not supported \(this wgc reads 1\)$/],
    ['partial.json', '{"formatVersion":1,"meta":{}}', /partial\.json: not a valid wgc report: meta\.suite: /],
  ])('%s is refused with a message naming the file and the problem', (name, text, message) => {
    const path = text === null ? join(dir, name) : write(name, text);
    expect(() => readReport(path)).toThrow(ReportReadError);
    expect(() => readReport(path)).toThrow(message);
  });

  test('parseReport accepts what renderJson wrote', () => {
    const r = buildRunResult(passingResults(), catalog, fixtureMeta());
    expect(parseReport(renderJson(r), 'x.json')).toEqual(r);
  });
});
