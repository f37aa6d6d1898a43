/**
 * The package as a CI user installs it: `npm pack` (prepare compiles to dist/), `npm i` of the
 * tarball in a scratch folder, then `npx wg-conformance --version` and `npx wg-conformance run`
 * against the embedded reference target, exit 0. The pack runs in a copy of the checkout, so the
 * checkout's own dist/ is never touched while other tests run. Dependencies come from npm's cache
 * (`--prefer-offline`): `npm ci` has put every one of them there.
 *
 * Figures (tarball size, start-up to the first request) are printed, never asserted on time.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Not part of a clean clone, or produced by it: never copied into the pack folder. */
const SKIP = new Set(['node_modules', 'dist', 'reports', '.git', '.stryker-tmp', 'scratch', 'allure-results', '.wgc-tmp']);

let work: string;
let tarball: string;
let app: string;

function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' }, timeout: 240_000 });
}

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? listFiles(p, base) : [relative(base, p).split('\\').join('/')];
  });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'wgc-pack-'));
  const src = join(work, 'src-copy');
  cpSync(ROOT, src, { recursive: true, filter: (p) => !SKIP.has(relative(ROOT, p).split(/[\\/]/)[0] ?? '') });
  // The build needs the checkout's dev dependencies (typescript); a link, not a copy.
  symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
  const packed = npm(['pack', '--pack-destination', work, '--silent'], src);
  expect(packed.status, `npm pack failed:\n${packed.stderr}`).toBe(0);
  tarball = join(work, packed.stdout.trim().split('\n').pop()!);
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'ci-user-app', private: true }));
  const installed = npm(['install', '-D', '--prefer-offline', '--no-audit', '--no-fund', tarball], app);
  expect(installed.status, `npm install of the tarball failed:\n${installed.stderr}`).toBe(0);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function npx(args: string[]): SpawnSyncReturns<string> {
  return spawnSync('npx', ['--no-install', ...args], { cwd: app, encoding: 'utf8', timeout: 180_000, env: { ...process.env, WGC_BASE_URL: '', WGC_TARGET: '' } });
}

describe('the package', () => {
  it('ships compiled JavaScript and only what runs', () => {
    const pkgDir = join(app, 'node_modules', 'wg-conformance');
    const files = listFiles(pkgDir);
    console.log(`tarball ${(statSync(tarball).size / 1024).toFixed(0)} KiB, ${files.length} files`);
    // No TypeScript to compile at start-up, no tests, fixtures, benchmarks or docs.
    expect(files.filter((f) => /\.(ts|mts|cts)$/.test(f))).toEqual([]);
    expect(files.filter((f) => /^(test|fixtures|bench|docs|examples|scripts|scratch)\//.test(f))).toEqual([]);
    expect(files).toContain('dist/src/cli/main.js');
    expect(files).toContain('dist/specs/openapi.yaml');
    expect(files).toContain('dist/specs/clauses.yaml');
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { bin: Record<string, string>; dependencies: Record<string, string> };
    expect(pkg.bin['wg-conformance']).toBeDefined();
    expect(pkg.dependencies.tsx).toBeUndefined();
    expect(existsSync(join(app, 'node_modules', 'tsx'))).toBe(false);
  });

  it('prints its version and the version of the API document', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = npx(['wg-conformance', '--version']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`wg-conformance ${pkg.version} (API document: Workspace Graph and ICP Service API v1-beta)`);
  });

  it('runs the whole suite against the embedded reference target from any folder, exit 0', () => {
    const r = npx(['wg-conformance', 'run', '--seed', '1', '--out', 'reports']);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const report = JSON.parse(readFileSync(join(app, 'reports', 'report.json'), 'utf8')) as { summary: { verdict: string; coverage: { full: boolean; verified: number } } };
    expect(report.summary.verdict).toBe('conformant');
    expect(report.summary.coverage.full).toBe(true);
    console.log(`installed run: ${report.summary.coverage.verified} clauses verified`);
  });

  it('answers with the short name wgc too', () => {
    const r = npx(['wgc', '--version']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wg-conformance /);
  });

  it('reaches its first request quickly (measured, printed)', async () => {
    // A stand-in target that records when the preflight's first request arrives.
    let firstAt = 0;
    const server: Server = createServer((req, res) => {
      firstAt ||= performance.now();
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"unauthorized","message":"no key"}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const times: number[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        firstAt = 0;
        const started = performance.now();
        const child = spawn(
          process.execPath,
          [join(app, 'node_modules', 'wg-conformance', 'bin', 'wg-conformance.mjs'), 'run', '--base-url', `http://127.0.0.1:${port}`, '--out', join(work, `startup-${i}`)],
          { cwd: app, stdio: 'ignore' },
        );
        const exited = new Promise<void>((r) => child.on('exit', () => r()));
        const deadline = Date.now() + 30_000;
        while (!firstAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        child.kill('SIGKILL');
        await exited;
        expect(firstAt, 'the run never sent a request').toBeGreaterThan(0);
        times.push(firstAt - started);
      }
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    times.sort((a, b) => a - b);
    console.log(`start-up to the first request: median ${times[1]!.toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')} ms)`);
  }, 120_000);
});
