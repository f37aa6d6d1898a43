/**
 * Plain http:// to a host off this machine carries keys across the network in clear text:
 * `wgc run` must refuse it unless --allow-insecure-http, say why, and do so before any
 * connection — at once, not after starting the suites. The addresses are never contacted
 * (a name under .invalid, TEST-NET-1 192.0.2.1); the proof is that nothing is sent and the
 * refusal comes within the time the CLI needs to start.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startHostile, type HostileTarget } from '../../fixtures/hostile/server.ts';
import { contention } from './helpers/bound.ts';
import { PACKAGE_ROOT, runWgc } from './helpers/run-wgc.ts';

const KEY = `wgk_${'a1b2'.repeat(10)}`;
const TOKEN = 'wgct_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d';

/** Wall time of `wgc run --help`: starting the CLI and loading the run command. */
let startupMs = 0;
let loopback: HostileTarget | undefined;
beforeAll(async () => {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['bin/wgc.mjs', 'run', '--help'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
  startupMs = Date.now() - t0;
  expect(r.status).toBe(0);
  loopback = await startHostile('silent', { meOk: true, controlToken: TOKEN });
});
afterAll(() => loopback?.close());

/** The refusals below run at once. */
const AT_ONCE = 3;
/** A refusal may cost twice the CLI start (× contention): it happens before suites or vitest load. */
const bound = (): number => 2 * contention(AT_ONCE) * startupMs;

describe.concurrent('plain http', () => {
  test.each(['http://staging.invalid', 'http://192.0.2.1:8080'])(
    '--base-url %s is refused before any connection, saying why',
    async (baseUrl) => {
      const out = await runWgc({ baseUrl, keys: { owner: KEY }, timeoutMs: 300, suites: ['idempotency'], killAfterMs: 60_000 });
      expect(out.killed).toBe(false);
      expect(out.exitCode).toBe(2);
      // Nothing was put on the wire (a report, if any, counts the requests sent).
      expect(out.report?.meta.requests ?? 0).toBe(0);
      const said = out.stdout + out.stderr;
      expect(said, 'the refusal names the reason and the way out').toMatch(/plain http/);
      expect(said).toContain('--allow-insecure-http');
      expect(said).toContain(new URL(baseUrl).host);
      expect(out.ms, `refused after ${out.ms} ms; starting the CLI takes ${startupMs} ms`).toBeLessThanOrEqual(bound());
    },
    90_000,
  );

  test('--control-url on plain http off this machine is refused too, before provisioning sends anything', async () => {
    const out = await runWgc({
      baseUrl: loopback!.baseUrl,
      controlUrl: 'http://192.0.2.1:8080/__control/v1',
      controlToken: TOKEN,
      timeoutMs: 300,
      suites: ['idempotency'],
      killAfterMs: 60_000,
    });
    expect(out.killed).toBe(false);
    expect(out.exitCode).toBe(2);
    expect(loopback!.stats.modeRequests + loopback!.stats.controlRequests).toBe(0);
    const said = out.stdout + out.stderr;
    expect(said).toMatch(/plain http/);
    expect(said).toContain('--allow-insecure-http');
    expect(out.ms, `refused after ${out.ms} ms; starting the CLI takes ${startupMs} ms`).toBeLessThanOrEqual(bound());
  }, 180_000);
});
