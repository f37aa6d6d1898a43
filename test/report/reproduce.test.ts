/**
 * A failure's reproduction reproduces: the scenario of a real failing check (the revoked key
 * that keeps working) becomes a shell script that, run on its own against a fresh target,
 * provisions a workspace, mints and revokes a key, and shows the same answer; against a
 * conformant target the same script shows the refusal. --check runs single checks.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startReference } from '../../src/reference/index.ts';
import { quoteWith, reproductionScript, rerunCommand, commentText } from '../../src/report/reproduce.ts';
import { jqPath, reportScenario } from '../../src/report/scenario.ts';
import type { RunResult } from '../../src/report/model.ts';
import { realRun } from './fixtures/real-run.ts';

const CHECK = 'auth/revoked-key-rejected';

function has(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
}
const tools = has('curl') && has('jq') && has('sh');
if (!tools) console.warn('reproduce.test.ts: curl, jq or sh is missing, so the script is not run (install curl and jq; .ci/run does)');

function scriptOf(r: RunResult, checkId: string): string {
  const check = r.checks.find((c) => c.checkId === checkId)!;
  return reproductionScript(
    check,
    r.meta,
    r.clauses.flatMap((c) => c.evidence.filter((e) => e.checkId === checkId)),
  )!;
}

describe('the reproduction of a real failure', () => {
  test('--check runs the one check; its scenario holds the set-up, the key minted and revoked through the control protocol, and the call that shows the failure', async () => {
    const { result } = await realRun({ faults: ['revoked-key-accepted'], checks: [CHECK], seed: 7 });
    const ran = result.checks.filter((c) => c.outcome !== 'disabled');
    expect(ran.map((c) => c.checkId)).toEqual([CHECK]);
    expect(result.checks.find((c) => c.checkId === 'auth/no-credential-rejected' || c.suite === 'errors')!.reason).toBe('check not selected (--check)');
    const sc = ran[0]!.scenario!;
    expect(sc.steps.filter((s) => s.phase === 'setup').map((s) => `${s.via} ${s.method}`)).toContain('control POST');
    const revoke = sc.steps.findIndex((s) => s.via === 'control' && /\/keys\/[^/]+\/revoke$/.test(s.url));
    const shown = sc.steps.findIndex((s) => s.finding);
    expect(revoke).toBeGreaterThan(0);
    expect(shown).toBeGreaterThan(revoke);
    expect(sc.steps[shown]!.status).toBe(200);
    // The key's secret is carried from the answer that minted it, never written down.
    expect(sc.steps.flatMap((s) => s.captures).some((c) => c.name.startsWith('secret:') && c.path === '.secret')).toBe(true);
  }, 180_000);

  test.skipIf(!tools && !process.env.CI)(
    'the script alone reproduces it on a fresh faulty target, and shows the refusal on a conformant one',
    async () => {
      const { result, controlToken } = await realRun({ faults: ['revoked-key-accepted'], checks: [CHECK], seed: 7 });
      const script = scriptOf(result, CHECK);
      expect(script).not.toContain(controlToken);
      expect(script).toContain('wgc run --base-url https://staging.example.test --control-url https://staging.example.test/__control/v1 --seed 7 --runs 5 --check auth/revoked-key-rejected');
      const dir = mkdtempSync(join(tmpdir(), 'wgc-repro-'));
      const file = join(dir, 'repro.sh');
      writeFileSync(file, script);
      execFileSync('sh', ['-n', file]);
      for (const [faults, last] of [
        [['revoked-key-accepted'], '-> 200'],
        [[], '-> 401'],
      ] as const) {
        const ref = await startReference({ faults, controlToken: 'tok-repro-0123456789' });
        try {
          // Asynchronously: the reference answers from this very process.
          const out = await promisify(execFile)('sh', [file], {
            env: { PATH: process.env.PATH, WGC_BASE_URL: ref.baseUrl, WGC_CONTROL_URL: ref.controlUrl, WGC_CONTROL_TOKEN: 'tok-repro-0123456789' },
            encoding: 'utf8',
          });
          expect(out.stderr).toBe('');
          const steps = out.stdout.split('\n').filter((l) => / -> \d{3} \(recorded /.test(l));
          expect(steps).toHaveLength(result.checks.find((c) => c.checkId === CHECK)!.scenario!.steps.length);
          // Every step but the last answers as recorded (ids and the minted secret were carried over).
          expect(steps.slice(0, -1).every((l) => /-> (\d{3}) \(recorded \1\)/.test(l))).toBe(true);
          expect(steps.at(-1)).toContain(last);
        } finally {
          await ref.close();
        }
      }
    },
    90_000,
  );
});

describe('script text', () => {
  test('hostile recorded text stays literal: single-quoted, comments on one line', () => {
    const nasty = `'; rm -rf / #\n$(touch /tmp/x) \`id\` "\${HOME}" [REDACTED:owner]`;
    const q = quoteWith(nasty, [{ literal: '[REDACTED:owner]', name: 'WGC_KEY_OWNER' }]);
    const echoed = execFileSync('sh', ['-c', `printf %s ${q}`], { env: { WGC_KEY_OWNER: 'SECRET' }, encoding: 'utf8' });
    expect(echoed).toBe(nasty.replace('[REDACTED:owner]', 'SECRET'));
    expect(commentText('a\nb\r\u001bc')).toBe('a b c');
  });

  test('ids are carried only as whole tokens, from the first answer holding them, with their jq path', () => {
    const ex = (id: string, url: string, body?: string, text?: string) => ({
      via: 'api' as const,
      phase: 'check' as const,
      base: 'https://t.test',
      exchange: {
        id,
        request: { method: 'POST', url, headers: {}, ...(body ? { body } : {}) },
        ...(text ? { response: { status: 201, headers: {}, text, isJson: true, bytes: text.length, truncated: false } } : {}),
        startedAt: '',
        durationMs: 1,
        retries: 0,
      },
    });
    const sc = reportScenario(
      [
        ex('a', 'https://t.test/api/v1/x', undefined, JSON.stringify({ items: [{ id: 'abc123', name: 'abc1234' }], 'odd key': { key_id: 'k-9999' } })),
        ex('b', 'https://t.test/api/v1/x/abc123?key=k-9999', '{"ref":"abc1234"}'),
      ],
      [{ clause: 'X-1', message: 'm', exchange: ex('b', '', '').exchange }],
    );
    expect(sc.steps[0]!.captures).toEqual([
      { name: 'ID_1', path: '.items[0].id', value: 'abc123' },
      { name: 'KEY_ID_2', path: '.["odd key"].key_id', value: 'k-9999' },
    ]);
    expect(sc.steps[1]!.finding).toBe(true);
    expect(jqPath([])).toBe('.');
  });

  test('the rerun command names the seed, the target and each check', () => {
    const meta = { target: { baseUrl: 'embedded reference target' }, seed: 9, config: { runs: 25 } } as unknown as RunResult['meta'];
    expect(rerunCommand(meta, ['auth/x', 'errors/y'])).toBe('wgc run --seed 9 --check auth/x --check errors/y');
  });
});
