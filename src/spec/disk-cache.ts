/**
 * A cache of loaded documents between processes. Loading openapi.yaml (YAML parse, OpenAPI 3.1
 * meta-schema validation, dereferencing) costs about a second of CPU, and every vitest worker
 * and every project test process did it again. The outcome depends only on the document's bytes,
 * the loader's own source and the versions of the libraries it uses, so a successful load is
 * kept, keyed by all of those, as a V8 serialisation (which keeps the shared sub-objects of
 * the dereferenced document shared). The clause catalog keeps its parsed YAML here too
 * (src/catalog/load.ts: about 0.2 s of each run's start-up). A failed load is never kept: errors still come from
 * the full loader, with their file:line:col.
 *
 * Only documents in this checkout's specs/ folder are cached (bounded: one entry per document,
 * the previous one is removed), under node_modules/.cache/wg-conformance. Any problem with
 * the cache (read-only folder, corrupt entry, other V8) falls back to the full load.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { SOURCE_EXT } from '../vocabulary.ts';

const require = createRequire(import.meta.url);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPECS_DIR = join(ROOT, 'specs') + sep;
/** Where the entries live. */
export const SPEC_CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'wg-conformance', 'spec');

/** Sources whose change changes what a load produces (the loader and what it validates against). */
const LOADER_SOURCES = ['src/spec/load', 'src/spec/source', 'src/spec/operations', 'src/spec/extensions', 'src/spec/disk-cache', 'src/engine/check'].map((f) => `${f}${SOURCE_EXT}`);
/** Libraries whose version changes what a load produces. */
const LIBRARIES = ['@apidevtools/swagger-parser', '@apidevtools/json-schema-ref-parser', 'ajv', 'yaml', 'zod'];

let loaderKey: string | undefined;

/** Hash of the loader's sources, the library versions and the V8 serialisation version. */
function loaderFingerprint(): string {
  if (loaderKey !== undefined) return loaderKey;
  const h = createHash('sha256');
  for (const f of LOADER_SOURCES) h.update(f).update(readFileSync(join(ROOT, f)));
  for (const lib of LIBRARIES) {
    let version = 'absent';
    try {
      // Where Node would find it: the checkout's node_modules, or the installing project's.
      const dir = (require.resolve.paths(lib) ?? []).find((d) => existsSync(join(d, lib, 'package.json')));
      if (dir) version = (JSON.parse(readFileSync(join(dir, lib, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      /* a library not installed at the top level: its absence is part of the key */
    }
    h.update(`${lib}@${version}`);
  }
  h.update(`v8 ${process.versions.v8}`);
  loaderKey = h.digest('hex');
  return loaderKey;
}

/** The cache entry of `file` with these contents (sha256 hex), or undefined when the file is not cacheable. */
function entryPath(kind: string, file: string, contentHash: string): string | undefined {
  if (!file.startsWith(SPECS_DIR) || dirname(file) + sep !== SPECS_DIR) return undefined;
  let fingerprint: string;
  try {
    fingerprint = loaderFingerprint();
  } catch {
    return undefined;
  }
  const key = createHash('sha256').update(fingerprint).update(contentHash).digest('hex').slice(0, 32);
  return join(SPEC_CACHE_DIR, `${kind}-${basename(file)}-${key}.v8`);
}

/** A cached load of `file` whose bytes hash to `contentHash` (sha256 hex), or undefined. */
export function readCached<T>(kind: string, file: string, contentHash: string): T | undefined {
  const entry = entryPath(kind, file, contentHash);
  if (!entry) return undefined;
  try {
    return deserialize(readFileSync(entry)) as T;
  } catch {
    return undefined;
  }
}

/** Keeps a successful load of `file`; replaces the document's previous entry. Never throws. */
export function writeCached(kind: string, file: string, contentHash: string, value: unknown): void {
  const entry = entryPath(kind, file, contentHash);
  if (!entry) return;
  try {
    mkdirSync(SPEC_CACHE_DIR, { recursive: true });
    const prefix = `${kind}-${basename(file)}-`;
    for (const old of readdirSync(SPEC_CACHE_DIR)) if (old.startsWith(prefix) && old !== basename(entry)) rmSync(join(SPEC_CACHE_DIR, old), { force: true });
    // Written aside and renamed: a concurrent reader sees the whole entry or none.
    const tmp = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, serialize(value));
    renameSync(tmp, entry);
  } catch {
    /* no cache this time */
  }
}
