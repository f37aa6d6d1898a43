/**
 * Reads a YAML/JSON document from disk, keeping enough of the parse to point at a place in
 * the file: every error the loader raises names the file and a line, never just "invalid".
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Document, LineCounter } from 'yaml';

/** A parsed source file and a way to turn a JSON pointer into "file:line:col". */
export interface SourceFile {
  file: string;
  hash: string;
  data: Record<string, unknown>;
  /** "file:line:col" of the node at a JSON pointer ("/paths/~1me/get"), or of its nearest existing parent. */
  locate(pointer: string): string;
}

/** Error raised for a bad document; the message always starts with the file (and place, when known). */
export class SpecError extends Error {
  override name = 'SpecError';
}

/** Reads and parses a document. Throws SpecError naming the file (and line) on any problem. */
export async function readSource(file: string): Promise<SourceFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new SpecError(`${file}: cannot read the document: ${(err as Error).message}`, { cause: err });
  }
  // Imported here, not at the top: with the spec disk cache warm no process parses YAML, and the
  // vitest worker's start-up is shorter without it (~45 ms of module evaluation).
  const yaml = await import('yaml');
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(bytes.toString('utf8'), { lineCounter, uniqueKeys: true, prettyErrors: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const where = pos ? `${file}:${pos.line}:${pos.col}` : file;
    // prettyErrors already appends the line and a code frame; keep only the first line of it.
    throw new SpecError(`${where}: YAML syntax error: ${first.message.split('\n')[0]}`);
  }
  const data: unknown = doc.toJS();
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new SpecError(`${file}:1:1: not an OpenAPI document: the top level is not a mapping`);
  }
  return {
    file,
    hash: createHash('sha256').update(bytes).digest('hex'),
    data: data as Record<string, unknown>,
    locate: (pointer) => locate(yaml, doc, lineCounter, file, pointer),
  };
}

/** Splits a JSON pointer ("/a/b~1c") into its unescaped segments. */
export function pointerSegments(pointer: string): string[] {
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (body === '' || body === '/') return [];
  return body
    .slice(1)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Escapes one segment for a JSON pointer. */
export function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function locate(yaml: Pick<typeof import('yaml'), 'isMap' | 'isSeq'>, doc: Document, lines: LineCounter, file: string, pointer: string): string {
  const segments = pointerSegments(pointer);
  // Walk down as far as the pointer exists, so a missing leaf still points at its parent.
  let node: unknown = doc.contents;
  for (const segment of segments) {
    let next: unknown;
    if (yaml.isMap(node)) next = node.get(segment, true);
    else if (yaml.isSeq(node)) next = node.get(Number(segment), true);
    if (next === undefined) break;
    node = next;
  }
  const range = (node as { range?: [number, number, number] } | null)?.range;
  if (!range) return file;
  const { line, col } = lines.linePos(range[0]);
  return `${file}:${line}:${col}`;
}
