/**
 * The disk cache of loaded documents (src/spec/disk-cache.ts): a load served from it must be
 * the same value as a full load, and a broken entry must only cost the full load again.
 */
import { copyFileSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { DEFAULT_CONTROL_SPEC_PATH, DEFAULT_SPEC_PATH } from '../../src/spec/load.ts';
import { SPEC_CACHE_DIR } from '../../src/spec/disk-cache.ts';

type Loader = typeof import('../../src/spec/load.ts');

/** A fresh instance of the loader module: its in-process cache is empty, the disk cache is not. */
async function freshLoader(): Promise<Loader> {
  vi.resetModules();
  return (await import('../../src/spec/load.ts')) as Loader;
}

const dir = mkdtempSync(join(tmpdir(), 'wgc-spec-cache-'));

/** Parts of a loaded document that must not depend on where it came from. */
function parts(d: Awaited<ReturnType<Loader['loadSpec']>> | Awaited<ReturnType<Loader['loadControlSpec']>>) {
  return { hash: d.hash, raw: d.raw, document: d.document, operations: d.operations, catalogOperations: 'catalogOperations' in d ? d.catalogOperations : undefined };
}

describe('spec disk cache', () => {
  test('a load from the cache equals a full load, for both documents', async () => {
    // Copies outside specs/ are never cached: they take the full path.
    const apiCopy = join(dir, 'openapi.yaml');
    const controlCopy = join(dir, 'control-openapi.yaml');
    copyFileSync(DEFAULT_SPEC_PATH, apiCopy);
    copyFileSync(DEFAULT_CONTROL_SPEC_PATH, controlCopy);
    const first = await freshLoader();
    const full = await first.loadSpec(apiCopy);
    const fullControl = await first.loadControlSpec(controlCopy);
    await first.loadSpec();
    await first.loadControlSpec();
    expect(readdirSync(SPEC_CACHE_DIR).filter((f) => f.endsWith('.v8')).length).toBeGreaterThanOrEqual(2);

    const second = await freshLoader();
    const cached = await second.loadSpec();
    const cachedControl = await second.loadControlSpec();
    expect(parts(cached)).toEqual(parts(full));
    expect(parts(cachedControl)).toEqual(parts(fullControl));
    expect(cached.file).toBe(DEFAULT_SPEC_PATH);
    expect(Object.isFrozen(cached.document)).toBe(true);
    expect(Object.isFrozen(cached.operations[0]!.responses)).toBe(true);
    expect(cached.operation('listDefinitions').operationId).toBe('listDefinitions');
    expect(cached.operationByRoute('GET', '/api/v1/definitions?limit=1')?.operationId).toBe('listDefinitions');
  }, 180_000);

  test('a corrupt entry falls back to the full load', async () => {
    const warm = await freshLoader();
    const expected = parts(await warm.loadSpec());
    for (const f of readdirSync(SPEC_CACHE_DIR)) if (f.startsWith('api-')) writeFileSync(join(SPEC_CACHE_DIR, f), 'not a v8 serialisation');
    const again = await freshLoader();
    expect(parts(await again.loadSpec())).toEqual(expected);
  }, 180_000);
});
