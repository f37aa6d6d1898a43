/**
 * Loads the OpenAPI documents of specs/ once per process: parse (with line numbers), check
 * local $refs, validate against the OpenAPI 3.1 meta-schema (swagger-parser), dereference,
 * check the structure and x-wgc extensions, and freeze. Every failure is an Error whose
 * message starts with "file:line:col". A successful load of the documents in specs/ is also
 * kept on disk (disk-cache.ts), so other processes with the same bytes skip the work.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routeMatcher } from './route.ts';
import { readSource, SpecError, type SourceFile } from './source.ts';
import { readCached, writeCached } from './disk-cache.ts';
import type { BaseOperationInfo, CatalogOperationRule, JsonSchema, LoadedControlSpec, LoadedDocument, LoadedSpec, OperationInfo } from './types.ts';

export { SpecError } from './source.ts';
export type * from './types.ts';

/** specs/openapi.yaml of this checkout. */
export const DEFAULT_SPEC_PATH = fileURLToPath(new URL('../../specs/openapi.yaml', import.meta.url));
/** specs/control-openapi.yaml of this checkout. */
export const DEFAULT_CONTROL_SPEC_PATH = fileURLToPath(new URL('../../specs/control-openapi.yaml', import.meta.url));

// Filled lazily, keyed by absolute path; a failed load is forgotten so a fixed file can be retried.
const specCache = new Map<string, Promise<LoadedSpec>>();
const controlCache = new Map<string, Promise<LoadedControlSpec>>();

/**
 * The service API document, validated and dereferenced; loaded once per path per process.
 * @throws Error naming the file and place: unreadable file, YAML syntax error, invalid OpenAPI,
 *   unresolved $ref, missing or malformed x-wgc extension.
 */
export function loadSpec(path: string = DEFAULT_SPEC_PATH): Promise<LoadedSpec> {
  return cached(specCache, resolve(path), async (file) => {
    const hit = await fromDisk<SpecParts>('api', file);
    if (hit) return Object.freeze({ ...view(hit.source, hit.parts.document, hit.parts.operations), catalogOperations: deepFreeze(hit.parts.catalogOperations) });
    const { source, document } = await loadDocument(file);
    // Imported on a miss only: with the disk cache warm no process needs them (nor zod, which the extensions are read with).
    const [{ CatalogOperationsSchema, parseExtension }, { extractOperations, withExtensions }] = await Promise.all([import('./extensions.ts'), import('./operations.ts')]);
    const operations = withExtensions(source, document, extractOperations(source, document));
    const catalog = parseExtension(CatalogOperationsSchema, document['x-wgc-operations'] ?? {});
    if (!catalog.ok) throw new SpecError(`${source.locate('/x-wgc-operations')}: x-wgc-operations: ${catalog.problem}`);
    const parts: SpecParts = { data: source.data, document, operations, catalogOperations: catalog.value };
    writeCached('api', file, source.hash, parts);
    return Object.freeze({ ...view(source, document, operations), catalogOperations: deepFreeze(catalog.value) });
  });
}

/**
 * The test-control protocol document, validated and dereferenced; loaded once per path per process.
 * @throws Error naming the file and place, as loadSpec.
 */
export function loadControlSpec(path: string = DEFAULT_CONTROL_SPEC_PATH): Promise<LoadedControlSpec> {
  return cached(controlCache, resolve(path), async (file) => {
    const hit = await fromDisk<DocumentParts<BaseOperationInfo>>('control', file);
    if (hit) return Object.freeze(view(hit.source, hit.parts.document, hit.parts.operations));
    const { source, document } = await loadDocument(file);
    const { extractOperations } = await import('./operations.ts');
    const operations = extractOperations(source, document);
    writeCached('control', file, source.hash, { data: source.data, document, operations } satisfies DocumentParts<BaseOperationInfo>);
    return Object.freeze(view(source, document, operations));
  });
}

/** What a load produces before its view is built: kept whole in the disk cache (disk-cache.ts). */
interface DocumentParts<Op extends BaseOperationInfo> {
  data: Record<string, unknown>;
  document: Record<string, unknown>;
  operations: Op[];
}
interface SpecParts extends DocumentParts<OperationInfo> {
  catalogOperations: Record<string, CatalogOperationRule>;
}

/**
 * The parts of an earlier successful load of this file's current bytes, from the disk cache;
 * undefined on a miss or any problem (the full load then runs and reports it).
 */
async function fromDisk<P extends DocumentParts<BaseOperationInfo>>(kind: string, file: string): Promise<{ source: SourceFile; parts: P } | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return undefined;
  }
  const hash = createHash('sha256').update(bytes).digest('hex');
  const parts = readCached<P>(kind, file, hash);
  if (!parts) return undefined;
  // Places are only needed to report a bad document, and a cached document was a good one.
  return { source: { file, hash, data: parts.data, locate: () => file }, parts };
}

function cached<T>(cache: Map<string, Promise<T>>, file: string, load: (file: string) => Promise<T>): Promise<T> {
  let entry = cache.get(file);
  if (!entry) {
    entry = load(file);
    cache.set(file, entry);
    entry.catch(() => cache.delete(file));
  }
  return entry;
}

async function loadDocument(file: string): Promise<{ source: SourceFile; document: Record<string, unknown> }> {
  const source = await readSource(file);
  const { checkLocalRefs } = await import('./operations.ts');
  checkLocalRefs(source);
  // Imported here, not at the top: with the disk cache warm no process needs it (~0.1 s of CPU each).
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  let document: Record<string, unknown>;
  try {
    // validate() dereferences the object it is given in place, hence the clone: `raw` keeps its $refs.
    document = (await SwaggerParser.validate(file, structuredClone(source.data) as never, {})) as unknown as Record<string, unknown>;
  } catch (err) {
    throw new SpecError(`${placeOf(source, err)}: invalid OpenAPI document: ${(err as Error).message.trim()}`, { cause: err });
  }
  return { source, document };
}

/** swagger-parser reports meta-schema failures as "#/json/pointer message": point at the first one. */
function placeOf(source: SourceFile, err: unknown): string {
  const pointer = /#(\/[^\s]*)/.exec(String((err as Error)?.message ?? ''))?.[1];
  return pointer ? source.locate(pointer) : source.file;
}

function view<Op extends BaseOperationInfo>(source: SourceFile, document: Record<string, unknown>, operations: Op[]): LoadedDocument<Op> {
  deepFreeze(document);
  deepFreeze(operations);
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const schemas = ((document['components'] as Record<string, unknown> | undefined)?.['schemas'] ?? {}) as Record<string, JsonSchema>;
  return {
    file: source.file,
    hash: source.hash,
    raw: deepFreeze(source.data),
    document,
    operations,
    operation(operationId) {
      const op = byId.get(operationId);
      if (!op) throw new Error(`${source.file}: no operation "${operationId}"`);
      return op;
    },
    operationByRoute: routeMatcher(operations),
    componentSchema(name) {
      const schema = Object.hasOwn(schemas, name) ? schemas[name] : undefined;
      if (!schema) throw new Error(`${source.file}: no schema "${name}" in components/schemas`);
      return schema;
    },
  };
}

/** Freezes a tree in place (shared sub-objects once); the loaded documents are shared by every suite. */
function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  for (const child of Object.values(value as object)) deepFreeze(child, seen);
  return Object.freeze(value);
}
