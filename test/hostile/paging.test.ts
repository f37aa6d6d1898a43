/**
 * endless-cursor and cursor-loop against the bounded walk of suites/_shared/paging.ts: the
 * walk ends with a finding (never a hang) after at most maxPages requests, and a cycling
 * cursor is caught the first time it repeats.
 */
import { afterEach, expect, test } from 'vitest';
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { Finding } from '../../src/engine/finding.ts';
import { createHttpClient, SecretRegistry, type HttpClient } from '../../src/http/index.ts';
import { walkCollection } from '../../suites/_shared/paging.ts';
import { startHostile, type HostileTarget } from '../../fixtures/hostile/server.ts';

const KEY: KeyHandle = { name: 'reader', secret: 'wgk_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a', role: 'member', scopes: ['graph:read'] };

let target: HostileTarget | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await target?.close();
  client = target = undefined;
});

async function walk(mode: 'endless-cursor' | 'cursor-loop', maxPages: number): Promise<{ error: unknown; requests: number }> {
  target = await startHostile(mode);
  client = createHttpClient({ baseUrl: target.baseUrl, timeoutMs: 1_000, secrets: new SecretRegistry() });
  // walkCollection only uses ctx.api.
  const ctx = { api: client } as unknown as CheckContext;
  const error = await walkCollection(ctx, KEY, { path: '/definitions', clause: 'PAGE-TEST', maxPages }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, requests: client.requestCount };
}

test('endless-cursor: the walk stops after maxPages requests with a finding', async () => {
  const { error, requests } = await walk('endless-cursor', 25);
  expect(error).toBeInstanceOf(Finding);
  expect((error as Finding).evidence.clause).toBe('PAGE-TEST');
  expect((error as Finding).message).toContain('after 25 pages');
  expect(requests).toBe(25);
  expect(target!.stats.modeRequests).toBe(25);
});

test('cursor-loop: the first repeated cursor ends the walk (A → B → C → A is 4 requests)', async () => {
  const { error, requests } = await walk('cursor-loop', 100);
  expect(error).toBeInstanceOf(Finding);
  expect((error as Finding).message).toContain('repeats');
  expect(requests).toBe(4);
});
