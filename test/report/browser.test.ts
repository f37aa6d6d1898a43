/**
 * report.html in a real browser (headless Chromium through playwright-core, the system's
 * `chromium`): a failing report opens on its failures, the tiles and filters work, deep links
 * to clause rows show the row, nothing is fetched and the console stays clean (a CSP
 * violation would be a console error). Without a browser the test says so and is skipped,
 * except in CI (CI=true), where .ci/run installs Debian's chromium and the test must run.
 *
 * WGC_SCREENSHOT=docs/report-screenshot.png regenerates the README's screenshot.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { renderHtml } from '../../src/report/html.ts';
import type { RunResult } from '../../src/report/model.ts';
import { failingRun } from './fixtures/real-run.ts';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => Boolean(p));
const browserPath = CANDIDATES.find((p) => existsSync(p));
if (!browserPath && !process.env.CI) console.warn('browser.test.ts: skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); CI installs it and runs this test');

describe.skipIf(!browserPath && !process.env.CI)('report.html in headless Chromium', () => {
  let browser: Browser;
  let result: RunResult;
  let url: string;
  const consoleErrors: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    if (!browserPath) throw new Error(`no Chromium at ${CANDIDATES.join(', ')}; CI must install it (.ci/run)`);
    result = await failingRun();
    const dir = mkdtempSync(join(tmpdir(), 'wgc-html-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtml(result));
    url = pathToFileURL(file).href;
    browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  async function open(hash = ''): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url + hash);
    return page;
  }

  test('the failures come first and open: the MUST failure is in the first screen with its exchange and reproduction', async () => {
    expect(result.summary.mustFailed).toEqual(['AUTH-007']);
    const page = await open();
    const failure = page.locator('#failure-AUTH-007');
    await expect.poll(() => failure.isVisible()).toBe(true);
    const box = (await failure.boundingBox())!;
    expect(box.y).toBeLessThan(900);
    // Open, not collapsed: the exchange and the replay command are showing.
    expect(await failure.locator('pre.res').first().isVisible()).toBe(true);
    expect(await failure.getByText('wgc run --base-url https://staging.example.test').first().isVisible()).toBe(true);
    // The response body is pretty-printed JSON.
    expect(await failure.locator('pre.res').first().textContent()).toMatch(/\{\n {2}"/);
    // The SHOULD warning follows the MUST failure.
    const should = (await page.locator('#failure-OPS-016').boundingBox())!;
    expect(should.y).toBeGreaterThan(box.y);
    // The Copy button sits above the text it copies, not over it.
    const bar = (await failure.locator('.copyable .bar').first().boundingBox())!;
    const pre = (await failure.locator('.copyable pre').first().boundingBox())!;
    expect(bar.y + bar.height).toBeLessThanOrEqual(pre.y + 1);
    await page.close();
  });

  test('a tile links to its section; the problems filter hides the rest; a deep link shows a filtered-out row', async () => {
    const page = await open();
    await page.locator('#clauses').scrollIntoViewIfNeeded();
    await page.locator('a.tile.t-should').click();
    expect(new URL(page.url()).hash).toBe('#failures-should');
    await expect.poll(() => page.locator('#failure-OPS-016').isVisible()).toBe(true);
    const inView = await page.locator('#failures-should').evaluate((el) => el.getBoundingClientRect().top);
    expect(Math.abs(inView)).toBeLessThan(50);

    await page.locator('#filter-problems').click();
    const shown = Number(await page.locator('#shown-count').textContent());
    expect(shown).toBe(result.summary.counts.failed + result.summary.counts.harnessError);
    expect(await page.locator('tr[id="AUTH-007"]').isVisible()).toBe(true);
    const passedRow = result.clauses.find((c) => c.outcome === 'passed')!.id;
    expect(await page.locator(`tr[id="${passedRow}"]`).isVisible()).toBe(false);
    // Deep link to the hidden row: the filters give way and the row shows.
    await page.evaluate((id) => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = id;
    }, passedRow);
    await expect.poll(() => page.locator(`tr[id="${passedRow}"]`).isVisible()).toBe(true);
    await page.close();
  });

  test('a CI comment can deep-link a clause row: report.html#AUTH-007 lands on it', async () => {
    const page = await open('#AUTH-007');
    const top = await page.locator('tr[id="AUTH-007"]').evaluate((el) => el.getBoundingClientRect().top);
    // Scrolled to the row: its top at the viewport's top, give or take a subpixel of layout rounding.
    expect(top).toBeGreaterThanOrEqual(-1);
    expect(top).toBeLessThan(900);
    if (process.env.WGC_SCREENSHOT) {
      const shot = await open();
      await shot.screenshot({ path: resolve(process.env.WGC_SCREENSHOT), clip: { x: 0, y: 0, width: 1280, height: 1100 } });
      await shot.close();
    }
    await page.close();
  });

  test('nothing but the file itself was requested, and the console stayed clean', () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((u) => !u.startsWith(url))).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
