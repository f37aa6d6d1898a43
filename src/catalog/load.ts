/**
 * Loads and validates the clause catalog (specs/clauses.yaml). Bad input fails at once with
 * a message naming the file and the place (clause index/id and field).
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { ClauseSchema, AREAS, type Clause, areaOf } from './types.ts';
import { readCached, writeCached } from '../spec/disk-cache.ts';

export const DEFAULT_CATALOG_PATH = fileURLToPath(new URL('../../specs/clauses.yaml', import.meta.url));

export interface Catalog {
  /** Clauses in catalog order. */
  readonly clauses: readonly Clause[];
  readonly byId: ReadonlyMap<string, Clause>;
  /** sha256 of the catalog file bytes. */
  readonly hash: string;
  readonly path: string;
  /** The clause, or an error naming the unknown id. */
  get(id: string): Clause;
}

const FileSchema = z.object({ version: z.literal(1), clauses: z.array(z.unknown()).min(1) }).strict();

const cache = new Map<string, Catalog>();

/** Loads the catalog once per path and process. Throws CatalogError on any problem. */
export function loadCatalog(path: string = DEFAULT_CATALOG_PATH): Catalog {
  const cached = cache.get(path);
  if (cached) return cached;
  const catalog = parseCatalog(readText(path), path);
  cache.set(path, catalog);
  return catalog;
}

export class CatalogError extends Error {
  constructor(path: string, place: string, problem: string) {
    super(`${path}: ${place}: ${problem}`);
    this.name = 'CatalogError';
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new CatalogError(path, 'file', `cannot be read (${(e as Error).message})`);
  }
}

/** Parses catalog text; exported for tests of bad input. */
export function parseCatalog(text: string, path: string): Catalog {
  const hash = createHash('sha256').update(text).digest('hex');
  const top = FileSchema.safeParse(yamlData(text, path, hash));
  if (!top.success) throw new CatalogError(path, 'top level', describe(top.error));
  const clauses: Clause[] = [];
  const byId = new Map<string, Clause>();
  top.data.clauses.forEach((raw, index) => {
    const idHint = typeof raw === 'object' && raw && 'id' in raw ? ` (${String((raw as { id: unknown }).id)})` : '';
    const place = `clauses[${index}]${idHint}`;
    const parsed = ClauseSchema.safeParse(raw);
    if (!parsed.success) throw new CatalogError(path, place, describe(parsed.error));
    const clause = parsed.data;
    if (!(AREAS as readonly string[]).includes(areaOf(clause.id))) {
      throw new CatalogError(path, place, `unknown area prefix "${areaOf(clause.id)}"; known: ${AREAS.join(', ')}`);
    }
    if (byId.has(clause.id)) throw new CatalogError(path, place, `duplicate id ${clause.id}`);
    byId.set(clause.id, clause);
    clauses.push(clause);
  });
  return {
    clauses,
    byId,
    hash,
    path,
    get(id: string): Clause {
      const c = byId.get(id);
      if (!c) throw new CatalogError(path, 'lookup', `unknown clause id "${id}"`);
      return c;
    },
  };
}

/**
 * The catalog's YAML as plain data. Parsing its ~100 kB takes about 0.2 s of CPU on every run
 * (the YAML library, not the checks below), so the data of a file that parsed without error is
 * kept between processes by the specs' disk cache (src/spec/disk-cache.ts: keyed by the file's
 * bytes and the YAML library's version; only files of this checkout's specs/). Everything after
 * the parse (the schema of every clause, ids, areas) is checked on every load, cached or not.
 */
function yamlData(text: string, path: string, hash: string): unknown {
  const cached = readCached<{ data: unknown }>('catalog', path, hash);
  if (cached) return cached.data;
  // Loaded only here: a run whose catalog is cached never loads the YAML library (~40 ms).
  const { parseDocument } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const line = err.linePos?.[0];
    throw new CatalogError(path, line ? `line ${line.line}, column ${line.col}` : 'YAML', err.message.split('\n')[0]!);
  }
  const data: unknown = doc.toJS();
  writeCached('catalog', path, hash, { data });
  return data;
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}

/** True when the clause can be observed by some client (it has no `unobservable` reason). */
export function isObservable(clause: Clause): boolean {
  return clause.unobservable === undefined;
}
