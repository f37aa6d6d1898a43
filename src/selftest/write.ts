/** Writes kill-matrix.json (the KillMatrix as is) and kill-matrix.md into a folder. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { KillMatrix } from './model.ts';
import { renderKillMatrixMarkdown } from './render.ts';

/** Returns the paths written. */
export async function writeKillMatrix(m: KillMatrix, dir: string): Promise<string[]> {
  const out = resolve(dir);
  await mkdir(out, { recursive: true });
  const json = join(out, 'kill-matrix.json');
  const md = join(out, 'kill-matrix.md');
  await writeFile(json, `${JSON.stringify(m, null, 2)}\n`);
  await writeFile(md, renderKillMatrixMarkdown(m));
  return [json, md];
}
