/**
 * The preflight of `wgc run` (src/target/preflight.ts): a misconfigured run is a usage error
 * (exit 2) that names the mistake, never a verdict and never a green run on nothing verified.
 * Each row of the issue that asked for it: keys that no longer work, a base URL ending in the
 * API prefix, a host where nothing listens, a URL that is some other web server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCommand } from '../../src/cli/run.ts';
import { createControlClient } from '../../src/control/client.ts';
import { startReference } from '../../src/reference/index.ts';
import { baseUrlProblem } from '../../src/target/preflight.ts';

const SUITES = ['--suites-dir', 'test/core/fixtures/suites'];
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function run(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'wgc-preflight-'));
  dirs.push(dir);
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCommand([...SUITES, '--out', dir, '--seed', '3', '--runs', '2', ...argv], env, { out: (t) => void out.push(t), err: (t) => void err.push(t) });
  return { code, out: out.join(''), err: err.join(''), dir };
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('wgc run preflight', () => {
  test('keys that no longer work: exit 2, each key named with what GET /me answered; no suite runs', async () => {
    const ref = await startReference();
    const control = createControlClient({ controlUrl: ref.controlUrl, token: ref.controlToken, http: { timeoutMs: 5000 } });
    try {
      const { workspaceId } = await control.createWorkspace();
      const { userId } = await control.addMember(workspaceId, 'owner');
      const good = await control.createKey(workspaceId, userId, ['graph:read', 'admin']);
      const rotated = await control.createKey(workspaceId, userId, ['admin']);
      await control.revokeKey(rotated.keyId);
      const dir = await mkdtemp(join(tmpdir(), 'wgc-profile-'));
      dirs.push(dir);
      const profile = join(dir, 'p.json');
      await writeFile(
        profile,
        JSON.stringify({
          keys: [
            { name: 'owner-wide', env: 'K_GOOD' },
            { name: 'owner-admin', env: 'K_OLD' },
          ],
        }),
      );
      const r = await run(['--target', profile, '--base-url', ref.baseUrl], { K_GOOD: good.secret, K_OLD: rotated.secret });
      expect(r.code).toBe(2);
      expect(r.err).toContain('key owner-admin: GET /me answered 401');
      expect(r.err).not.toContain('owner-wide');
      expect(r.err + r.out).not.toContain(rotated.secret);
      const report = JSON.parse(await readFile(join(r.dir, 'report.json'), 'utf8')) as { summary: { verdict: string }; meta: { runErrors: string[] } };
      expect(report.summary.verdict).toBe('inconclusive');
      expect(report.meta.runErrors.join(' ')).toContain('owner-admin');
    } finally {
      await control.close();
      await ref.close();
    }
  });

  test('a base URL ending in the API prefix: refused before anything is sent, with the corrected URL', async () => {
    const r = await run(['--base-url', 'http://127.0.0.1:9/api/v1/']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('use --base-url http://127.0.0.1:9');
    expect(baseUrlProblem('https://host/prefix/api/v1')).toContain('use --base-url https://host/prefix');
    expect(baseUrlProblem('https://host/prefix')).toBeUndefined();
  });

  test("a host where nothing listens: exit 2, the API cannot be reached (not the target's failure)", async () => {
    const { url, server } = await listen(() => {});
    await new Promise<void>((r) => server.close(() => r()));
    const r = await run(['--base-url', url]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the API cannot be reached: GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/me got no answer/);
    expect(r.out).not.toMatch(/NOT-CONFORMANT|CONFORMANT \(/);
  });

  test('some other web server: exit 2, this does not look like the API', async () => {
    const { url, server } = await listen((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not Found</body></html>');
    });
    try {
      const r = await run(['--base-url', url]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`this does not look like the API: GET ${url}/api/v1/me without a key answered 404 text/html`);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  test('the embedded reference passes the preflight', async () => {
    const r = await run([]);
    expect(r.code).toBe(0);
    expect(r.err).not.toContain('preflight');
  });
});

describe('--require-coverage', () => {
  test('a conformant run short of the required coverage is inconclusive (exit 2), saying why; one that reaches it exits 0', async () => {
    const short = await run(['--require-coverage', 'full']);
    expect(short.code).toBe(2);
    const report = JSON.parse(await readFile(join(short.dir, 'report.json'), 'utf8')) as { summary: { verdict: string; headline: string } };
    expect(report.summary.verdict).toBe('inconclusive');
    expect(report.summary.headline).toMatch(/^inconclusive: full coverage was required/);
    expect(await readFile(join(short.dir, 'summary.md'), 'utf8')).not.toContain('✅');
    expect((await run(['--require-coverage', '1'])).code).toBe(0);
    expect((await run(['--require-coverage', '100%'])).code).toBe(2);
    expect((await run(['--require-coverage', 'most'])).code).toBe(2);
  });
});
