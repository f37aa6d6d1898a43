/**
 * The vitest behaviour the glue relies on (vitest 4.1): task meta set before ctx.skip() and
 * before a throw reaches reporters, together with the skip note.
 */
import { expect, test } from 'vitest';
import { startVitest, type TestCase } from 'vitest/node';

test('meta set before skip and before a failure reaches the reporter', async () => {
  const seen: { name: string; state: string; note?: string; meta: unknown }[] = [];
  const exitCode = process.exitCode;
  const vitest = await startVitest('test', [], {
    config: false,
    root: process.cwd(),
    dir: 'test/core/fixtures/meta',
    include: ['skip-meta.fixture.ts'],
    watch: false,
    pool: 'threads',
    reporters: [
      {
        onTestCaseResult(tc: TestCase) {
          const r = tc.result();
          seen.push({ name: tc.name, state: r.state, note: r.state === 'skipped' ? r.note : undefined, meta: tc.meta().wgc });
        },
      },
    ],
  });
  await vitest.close();
  process.exitCode = exitCode;
  expect(seen).toEqual([
    { name: 'meta then skip', state: 'skipped', note: 'not observable here', meta: { checkId: 'meta/skip' } },
    { name: 'meta then throw', state: 'failed', note: undefined, meta: { checkId: 'meta/throw' } },
  ]);
});
