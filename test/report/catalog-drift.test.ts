/**
 * Catalog drift in `wgc diff` (issue #30 item 3): a release whose live catalog no longer offers
 * an operation (the reference started `--without-operation`) passes its own run, and the diff
 * against the previous release's report catches it: exit 1 with the operation named, exit 0
 * with --allow-catalog-change; an added operation is news, never a regression.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { diffCommand } from '../../src/cli/diff.ts';
import { startReference } from '../../src/reference/index.ts';
import type { RunResult } from '../../src/report/model.ts';

const WGC = fileURLToPath(new URL('../../bin/wgc.mjs', import.meta.url));
const DROPPED = 'graph.context_refresh';
const dir = mkdtempSync(join(tmpdir(), 'wgc-catalog-drift-'));
let before: string;
let after: string;

/** `wgc run` of the check that reads the live catalog, against a reference started with `opts`. */
async function runAgainst(name: string, opts: Parameters<typeof startReference>[0]): Promise<string> {
  const ref = await startReference(opts);
  try {
    const out = join(dir, name);
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WGC_')) env[k] = v;
    env['WGC_CONTROL_TOKEN'] = ref.controlToken;
    const args = [WGC, 'run', '--base-url', ref.baseUrl, '--control-url', ref.controlUrl, '--check', 'auth/capabilities-answers-every-key', '--out', out, '--quiet', '--seed', '1'];
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: 'ignore' });
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code, `${name}: wgc run`).toBe(0);
    return join(out, 'report.json');
  } finally {
    await ref.close();
  }
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out: () => out.join(''), err: () => err.join('') };
}

beforeAll(async () => {
  before = await runAgainst('before', {});
  after = await runAgainst('after', { withoutOperations: [DROPPED] });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the live catalog in the report and in wgc diff', () => {
  test('each report records the operations GET /capabilities served', () => {
    const read = (f: string) => (JSON.parse(readFileSync(f, 'utf8')) as RunResult).meta.liveCatalog!;
    expect(read(before).operations).toContain(DROPPED);
    expect(read(after).operations).not.toContain(DROPPED);
    expect(read(after).operations.length).toBe(read(before).operations.length - 1);
    expect(read(before).observedBy).toBe('auth/capabilities-answers-every-key');
    // The reference lists change kinds for the operations that have them.
    expect(Object.keys(read(before).changeKinds ?? {}).length).toBeGreaterThan(0);
  });

  test('an operation gone from the catalog is a regression: exit 1, named; --allow-catalog-change: exit 0', async () => {
    const a = capture();
    expect(await diffCommand([before, after], a.io)).toBe(1);
    expect(a.out()).toContain(`live catalog: operations removed (a regression unless --allow-catalog-change) (1): ${DROPPED}`);
    expect(a.out()).not.toMatch(/^Regressed/m);
    const b = capture();
    expect(await diffCommand([before, after, '--allow-catalog-change'], b.io)).toBe(0);
    const md = capture();
    expect(await diffCommand([before, after, '--format', 'markdown'], md.io)).toBe(1);
    expect(md.out()).toContain('### Live catalog (GET /capabilities)');
    expect(md.out()).toContain(DROPPED.replace(/_/g, '\\_'));
    const page = capture();
    expect(await diffCommand([before, after, '--format', 'html'], page.io)).toBe(1);
    expect(page.out()).toMatch(/^<!doctype html>/);
    expect(page.out()).toContain('wgc diff: regression');
    expect(page.out()).toMatch(new RegExp(`<section id="live-catalog">.*operations removed.*${DROPPED.replace('.', '\\.')}`, 's'));
  });

  test('an operation added is news, not a regression', async () => {
    const c = capture();
    expect(await diffCommand([after, before], c.io)).toBe(0);
    expect(c.out()).toContain(`live catalog: operations added (news) (1): ${DROPPED}`);
  });
});
