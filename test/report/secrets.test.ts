/**
 * Renderers never re-introduce a secret: exchanges carry "[REDACTED:...]" markers (redacted
 * at capture), the configuration holds a planted secret under secret-looking keys, and no
 * file a run writes may contain it. (An end-to-end scan over a real run lives elsewhere.)
 */
import { describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRunResult } from '../../src/report/build.ts';
import { writeReports } from '../../src/report/write.ts';
import { renderTerminalSummary } from '../../src/report/terminal.ts';
import { redactConfig } from '../../src/report/redact.ts';
import { writeCertificationBundle } from '../../src/report/certify.ts';
import { FIXTURE_CATALOG_PATH, FIXTURE_SPEC_PATH, PLANTED_SECRET, fixtureCatalog, fixtureMeta, mixedResults } from './fixtures/results.ts';

describe('secrets', () => {
  const result = buildRunResult(
    mixedResults(),
    fixtureCatalog(),
    fixtureMeta({
      config: {
        baseUrl: 'https://api.example.test',
        keys: { owner: PLANTED_SECRET, analyst: [PLANTED_SECRET] },
        control: { token: PLANTED_SECRET, url: 'https://control.example.test' },
        headers: { Authorization: `Bearer ${PLANTED_SECRET}` },
        apiKey: PLANTED_SECRET,
        alreadyRedacted: { password: '[REDACTED:password]' },
        readOnly: true,
      },
    }),
  );

  test('no rendering contains the planted secret, and the markers stay markers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-secrets-'));
    const files = await writeReports(result, dir);
    const bundle = await writeCertificationBundle(result, join(dir, 'bundle'), { specPath: FIXTURE_SPEC_PATH, catalogPath: FIXTURE_CATALOG_PATH });
    for (const file of [...files, ...bundle]) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toContain(PLANTED_SECRET);
    }
    expect(renderTerminalSummary(result, { color: true })).not.toContain(PLANTED_SECRET);
    const report = readFileSync(join(dir, 'report.json'), 'utf8');
    expect(report).toContain('[REDACTED:owner]');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('[REDACTED:owner]');
    // The curl command refers to the credential by environment variable, never by value.
    expect(result.clauses.find((c) => c.id === 'AUTH-003')!.evidence[0]!.exchange!.curl).toContain('${WGC_KEY_OWNER}');
  });

  test('the configuration is redacted again defensively, keeping its shape', () => {
    expect(result.meta.config).toEqual({
      baseUrl: 'https://api.example.test',
      keys: { owner: '[REDACTED:owner]', analyst: ['[REDACTED:analyst]'] },
      control: { token: '[REDACTED:token]', url: 'https://control.example.test' },
      headers: { Authorization: '[REDACTED:Authorization]' },
      apiKey: '[REDACTED:apiKey]',
      alreadyRedacted: { password: '[REDACTED:password]' },
      readOnly: true,
    });
    expect(redactConfig({ idempotencyKeyPrefix: 'wgc-', maxCredits: 10 })).toEqual({ idempotencyKeyPrefix: 'wgc-', maxCredits: 10 });
  });
});
