/**
 * Shard partials: what one shard of a sharded run writes (its CheckResults and its run
 * facts), so `wgc merge` can build the report an unsharded run would have produced.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { CheckResult } from '../engine/check.ts';
import { FORMAT_VERSION, ShardSchema, type Shard } from './model.ts';
import { RunMetaInputSchema, type RunMetaInput } from './meta.ts';
import { CheckResultSchema } from './check-result.ts';
import { ReportReadError } from './json.ts';

/** Marks a partial file (a report has no `kind`). */
export const PARTIAL_KIND = 'wgc-partial';

/** A shard partial file. */
export const PartialSchema = z
  .object({
    formatVersion: z.literal(FORMAT_VERSION),
    kind: z.literal(PARTIAL_KIND),
    shard: ShardSchema,
    /** sha256 of the catalog the shard ran against. */
    catalogHash: z.string(),
    meta: RunMetaInputSchema,
    results: z.array(CheckResultSchema),
  })
  .strict();

/** A shard partial as read back (results typed as the engine's CheckResult: one declaration). */
export type ShardPartial = z.infer<typeof PartialSchema>;

/** File name of a shard's partial, e.g. "partial-2-of-4.json". */
export function partialFileName(shard: Shard): string {
  return `partial-${shard.index}-of-${shard.count}.json`;
}

/** Writes one shard's partial into `outDir`; returns its path. */
export async function writePartialFile(outDir: string, shard: Shard, catalogHash: string, meta: RunMetaInput, results: readonly CheckResult[]): Promise<string> {
  const partial: ShardPartial = { formatVersion: FORMAT_VERSION, kind: PARTIAL_KIND, shard, catalogHash, meta: { ...meta, shard }, results: [...results] };
  PartialSchema.parse(partial);
  await mkdir(outDir, { recursive: true });
  const path = join(outDir, partialFileName(shard));
  await writeFile(path, `${JSON.stringify(partial, null, 2)}\n`, 'utf8');
  return path;
}

/** Reads and validates a partial; throws ReportReadError naming the file and the problem. */
export async function readPartialFile(file: string): Promise<ShardPartial> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ReportReadError(file, code === 'ENOENT' ? 'file not found' : `cannot be read (${(e as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ReportReadError(file, `not JSON (${(e as Error).message})`);
  }
  const obj = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  if (obj.kind !== PARTIAL_KIND) throw new ReportReadError(file, `not a wgc shard partial (kind is ${JSON.stringify(obj.kind)})`);
  if (obj.formatVersion !== FORMAT_VERSION) {
    throw new ReportReadError(file, `partial formatVersion ${JSON.stringify(obj.formatVersion)} is not supported (this wgc reads ${FORMAT_VERSION})`);
  }
  const parsed = PartialSchema.safeParse(data);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new ReportReadError(file, `not a valid wgc shard partial: ${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  return parsed.data;
}
