/**
 * junit.xml validates against the Jenkins/Surefire junit-4.xsd (test/report/schemas/) with
 * xmllint, for a hand-built run with hostile text and for a real failing run; each clause's
 * time is the time of the checks that spoke of it. Without xmllint (Debian: libxml2-utils)
 * the validation says so and is skipped, except in CI, where .ci/run installs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { buildRunResult } from '../../src/report/build.ts';
import { renderJunit } from '../../src/report/junit.ts';
import type { RunResult } from '../../src/report/model.ts';
import { check, fixtureCatalog, fixtureMeta, mixedResults } from './fixtures/results.ts';
import { failingRun } from './fixtures/real-run.ts';
import { checkXml } from './xml-check.ts';

const SCHEMA = fileURLToPath(new URL('./schemas/junit-4.xsd', import.meta.url));
const xmllint = spawnSync('sh', ['-c', 'command -v xmllint']).status === 0;
if (!xmllint && !process.env.CI) console.warn('junit.test.ts: xmllint is missing (apt-get install libxml2-utils), so junit.xml is not validated against junit-4.xsd here; CI installs it');

/** xmllint's verdict on the XML against junit-4.xsd: "" when valid, else its messages. */
function validate(xml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'wgc-junit-'));
  const file = join(dir, 'junit.xml');
  writeFileSync(file, xml);
  const out = spawnSync('xmllint', ['--noout', '--schema', SCHEMA, file], { encoding: 'utf8' });
  return out.status === 0 ? '' : `${out.stderr}${out.stdout}`;
}

const mixed = (): RunResult => buildRunResult(mixedResults(), fixtureCatalog(), fixtureMeta());

describe.skipIf(!xmllint && !process.env.CI)('junit.xml against junit-4.xsd (xmllint)', () => {
  test('the schema is strict enough to refuse what the issue found: properties in a testcase, skipped on testsuites', () => {
    const bad = '<testsuites skipped="1"><testsuite name="a" tests="1"><testcase name="x"><properties><property name="a" value="b"/></properties></testcase></testsuite></testsuites>';
    const problems = validate(bad);
    expect(problems).toContain("attribute 'skipped': The attribute 'skipped' is not allowed");
    expect(problems).toContain("Element 'properties': This element is not expected");
  });

  test('a run with every outcome and hostile text validates', () => {
    expect(validate(renderJunit(mixed()))).toBe('');
  });

  test('a real failing run validates, its failure naming the reproduction script', async () => {
    const xml = renderJunit(await failingRun());
    expect(validate(xml)).toBe('');
    expect(xml).toContain('reproduction script: reproduce/auth--revoked-key-rejected.sh');
  }, 180_000);
});

describe('junit.xml content', () => {
  test('properties only at suite level; a clause takes the time of the checks that spoke of it', () => {
    const results = [check('auth/no-credential', { 'AUTH-001': 'passed' }, { durationMs: 1500 }), check('auth/unknown-key', { 'AUTH-001': 'passed', 'AUTH-002': 'passed' }, { durationMs: 250 })];
    const xml = renderJunit(buildRunResult(results, fixtureCatalog(), fixtureMeta()));
    const { problems, elements } = checkXml(xml);
    expect(problems).toEqual([]);
    const cases = elements.filter((e) => e.name === 'testcase');
    expect(cases.find((c) => c.attrs.name!.startsWith('AUTH-001 '))!.attrs.time).toBe('1.750');
    expect(cases.find((c) => c.attrs.name!.startsWith('AUTH-002 '))!.attrs.time).toBe('0.250');
    expect(cases.find((c) => c.attrs.name!.startsWith('ERR-001 '))!.attrs.time).toBe('0.000');
    const auth = elements.find((e) => e.name === 'testsuite' && e.attrs.name === 'AUTH')!;
    expect(auth.attrs.time).toBe('1.750');
    expect(elements[0]!.attrs.skipped).toBeUndefined();
    expect(xml.match(/<properties>/g)!.length).toBe(elements.filter((e) => e.name === 'testsuite').length);
  });

  test('a failure names the exact replay and its reproduction script', () => {
    const xml = renderJunit(mixed());
    expect(xml).toContain('replay: wgc run --base-url https://api.example.test --seed 424242 --check auth/no-credential');
    expect(xml).toContain('<property name="rerun" value="wgc run --base-url https://api.example.test --seed 424242"/>');
  });
});
